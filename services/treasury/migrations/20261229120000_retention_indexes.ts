import type { Knex } from 'knex';
import { createInboxRetentionIndex } from '@wallet/kit';

/** Built concurrently, outside a transaction, so the consumers' inserts are not held back. */
export const transaction = false;

/** What the retention purge finds old inbox rows by (analytics_entries has its posted_at index already). */
export async function up(db: Knex): Promise<void> {
  await createInboxRetentionIndex(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS inbox_processed_at_brin');
}
