import type { Knex } from 'knex';
import { createIndexConcurrently } from '@wallet/kit';

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
