import type { Knex } from 'knex';

/** A finished full run keeps the digests of the entries naming records, which payments' and treasury's check 3 compare their records with. */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE reconciliation_full_runs ADD COLUMN IF NOT EXISTS record_digests jsonb');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE reconciliation_full_runs DROP COLUMN IF EXISTS record_digests');
}
