import type { Knex } from 'knex';
import { createPendingCasesIndex } from '@wallet/money-commands';

/** Built concurrently, outside a transaction: payouts keep being requested while it is built. */
export const transaction = false;

/** The approvals inbox's payouts from an index of the pending ones alone (createPendingCasesIndex). */
export async function up(db: Knex): Promise<void> {
  await createPendingCasesIndex(db, 'payout_cases');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX CONCURRENTLY IF EXISTS payout_cases_pending');
}
