import type { Knex } from 'knex';
import { createIdempotencyInFlightIndex } from '@wallet/kit';

/** Built concurrently, outside a transaction: idempotency keys keep being written while the index is built. */
export const transaction = false;

/** What /metrics counts the idempotency keys in flight by. */
export async function up(db: Knex): Promise<void> {
  await createIdempotencyInFlightIndex(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS idempotency_keys_in_flight');
}
