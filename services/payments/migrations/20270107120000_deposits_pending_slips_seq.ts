import type { Knex } from 'knex';

/** Built concurrently, outside a transaction: deposits keep arriving while it is built. */
export const transaction = false;

/**
 * Slips waiting for their bank statement are an operator's inbox (`GET /v1/deposits?source=bank_slip&status=pending`),
 * listed newest first by seq; behind a year of mobile-money deposits a bounded examination could
 * miss them. Only pending slips are in it, and a deposit's status change was already a non-HOT
 * update (deposits_pending_slips, by time, serves reconciliation's bank evidence).
 */
export async function up(db: Knex): Promise<void> {
  await createIndexConcurrently(
    db,
    'deposits_pending_slips_seq',
    `deposits (tenant_id, environment, seq) WHERE source = 'bank_slip' AND status = 'pending'`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX CONCURRENTLY IF EXISTS deposits_pending_slips_seq');
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
