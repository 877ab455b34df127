import type { Knex } from 'knex';
import { createInboxRetentionIndex, createIndexConcurrently } from '@wallet/kit';

/** Built concurrently, outside a transaction: processed_commands may be large and the posting path keeps writing. */
export const transaction = false;

/**
 * What the retention purge finds old rows by. processed_commands.created_at is now() of the
 * batch that wrote the row, so rows arrive in time order (two batches in flight interleave by
 * milliseconds at most) and a BRIN index, one summary per 128 pages, says where the old ones are
 * without a btree entry per command on the posting path. No index is added to the journal.
 */
export async function up(db: Knex): Promise<void> {
  await createIndexConcurrently(db, 'processed_commands_created_at_brin', 'processed_commands USING brin (created_at)');
  await createInboxRetentionIndex(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS processed_commands_created_at_brin, inbox_processed_at_brin');
}
