import type { Knex } from 'knex';
import { createIdempotencyInFlightIndex } from '@wallet/kit';
import { AWAITING_LEDGER_TABLE, createAwaitingLedgerTable } from '@wallet/money-commands';

/** Built concurrently, outside a transaction: idempotency keys keep being written while the index is built. */
export const transaction = false;

/** What /metrics reads the records still waiting for the ledger and the idempotency keys in flight by. */
export async function up(db: Knex): Promise<void> {
  await createAwaitingLedgerTable(db);
  await createIdempotencyInFlightIndex(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`DROP INDEX IF EXISTS idempotency_keys_in_flight; DROP TABLE IF EXISTS ${AWAITING_LEDGER_TABLE}`);
}
