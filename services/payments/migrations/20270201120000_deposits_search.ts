import type { Knex } from 'knex';

/** Built concurrently, outside a transaction: deposits keep arriving while they are built. */
export const transaction = false;

/**
 * The dashboard's search finds a deposit by the reference its rail gave it (a mobile money
 * transaction id, a slip reference) and by the phone number it came from, newest first. Without
 * these a tenant's whole history would be read for one reference (the momo index leads with the
 * provider, which a search does not know).
 */
export async function up(db: Knex): Promise<void> {
  await createIndexConcurrently(db, 'deposits_external_ref_seq', 'deposits (tenant_id, environment, external_ref, seq DESC)');
  await createIndexConcurrently(
    db,
    'deposits_phone_number_seq',
    'deposits (tenant_id, environment, phone_number, seq DESC) WHERE phone_number IS NOT NULL',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX CONCURRENTLY IF EXISTS deposits_phone_number_seq');
  await db.raw('DROP INDEX CONCURRENTLY IF EXISTS deposits_external_ref_seq');
}

/** Frozen here as it ran: a build that failed half way leaves an invalid index that IF NOT EXISTS would keep, so one is dropped first. */
async function createIndexConcurrently(db: Knex, name: string, definition: string): Promise<void> {
  const invalid = await db.raw<{ rows: unknown[] }>(
    'SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid',
    [name],
  );
  if (invalid.rows.length > 0) await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
  await db.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON ${definition}`);
}
