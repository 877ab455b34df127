import type { Knex } from 'knex';

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
  await createIndexConcurrently(db, 'inbox_processed_at_brin', 'inbox USING brin (processed_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS processed_commands_created_at_brin, inbox_processed_at_brin');
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
