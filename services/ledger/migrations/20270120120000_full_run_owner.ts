import type { Knex } from 'knex';

/**
 * A queued or running full run names the ledger instance that holds it (its session advisory lock's key), so that any
 * instance can tell a run whose instance stopped and record it failed rather than let it wait for ever.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE reconciliation_full_runs ADD COLUMN IF NOT EXISTS owner text');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE reconciliation_full_runs DROP COLUMN IF EXISTS owner');
}
