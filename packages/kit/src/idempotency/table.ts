import type { Knex } from 'knex';
import { createIndexConcurrently } from '../db';

export const IDEMPOTENCY_TABLE = 'idempotency_keys';

/**
 * Migration step of every service with idempotent routes: one row per key and (tenant,
 * environment). A row is either held by one attempt (`in_progress`, with a lock that a crashed
 * holder stops renewing) or remembers the answer the key got (`completed`, the exact bytes).
 */
export async function createIdempotencyTable(db: Knex): Promise<void> {
  await db.schema.createTable(IDEMPOTENCY_TABLE, (table) => {
    table.text('tenant_id').notNullable();
    table.text('environment').notNullable();
    table.text('idempotency_key').notNullable();
    // SHA-256 hex of what makes two requests "the same" (see requestFingerprint).
    table.text('fingerprint').notNullable();
    table.text('status').notNullable();
    // Names the attempt holding the key: completion, renewal and release only act on the
    // holder's own row, so an attempt whose lock was taken over can no longer write.
    table.uuid('lock_token').notNullable();
    table.timestamp('locked_until', { useTz: true });
    table.smallint('response_status');
    table.jsonb('response_headers');
    table.binary('response_body');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('completed_at', { useTz: true });
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.primary(['tenant_id', 'environment', 'idempotency_key']);
    // The purge walks expired rows in order.
    table.index(['expires_at'], 'idempotency_keys_expires_at_idx');
    table.check(`environment IN ('test', 'live')`, {}, 'idempotency_keys_environment_check');
    table.check(`char_length(fingerprint) = 64`, {}, 'idempotency_keys_fingerprint_check');
    // A held row has a lock; a completed row has the whole answer to replay.
    table.check(
      `(status = 'in_progress' AND locked_until IS NOT NULL)
       OR (status = 'completed' AND response_status IS NOT NULL AND response_headers IS NOT NULL AND response_body IS NOT NULL)`,
      {},
      'idempotency_keys_status_check',
    );
  });
}

/**
 * What idempotency_keys_in_flight counts by, for a migration with `transaction: false`. Partial:
 * only keys in progress are in it, so it stays small. A key written completed at its first write
 * (transfers) never enters it, and replacing one completed answer by another leaves it alone.
 */
export async function createIdempotencyInFlightIndex(db: Knex): Promise<void> {
  await createIndexConcurrently(db, 'idempotency_keys_in_flight', `${IDEMPOTENCY_TABLE} (created_at) WHERE status = 'in_progress'`);
}
