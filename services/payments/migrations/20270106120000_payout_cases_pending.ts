import type { Knex } from 'knex';

/** Built concurrently, outside a transaction: payouts keep being requested while it is built. */
export const transaction = false;

/** The approvals inbox's payouts from an index of the pending ones alone. */
export async function up(db: Knex): Promise<void> {
  await createIndexConcurrently(db, 'payout_cases_pending', `payout_cases (tenant_id, environment, seq) WHERE status = 'pending'`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX CONCURRENTLY IF EXISTS payout_cases_pending');
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
