import type { Knex } from 'knex';
import { createInboxRetentionIndex, createIndexConcurrently } from '@wallet/kit';

/** Built concurrently, outside a transaction, so logins and consumers are not held back. */
export const transaction = false;

/** What the retention purge finds old rows by: the inbox's processing time, and sessions' expiry (one row per login). */
export async function up(db: Knex): Promise<void> {
  await createInboxRetentionIndex(db);
  await createIndexConcurrently(db, 'sessions_expires_at', 'sessions (expires_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS inbox_processed_at_brin, sessions_expires_at');
}
