import type { Knex } from 'knex';
import { createInboxRetentionIndex } from '@wallet/kit';

/**
 * What the retention purge finds old rows by. processed_commands.created_at is now() of the
 * batch that wrote the row, so rows arrive in time order (two batches in flight interleave by
 * milliseconds at most) and a BRIN index, one summary per 128 pages, says where the old ones are
 * without a btree entry per command on the posting path. No index is added to the journal.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE INDEX IF NOT EXISTS processed_commands_created_at_brin ON processed_commands USING brin (created_at)');
  await createInboxRetentionIndex(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS processed_commands_created_at_brin, inbox_processed_at_brin');
}
