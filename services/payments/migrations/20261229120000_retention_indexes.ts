import type { Knex } from 'knex';

/** Built concurrently, outside a transaction, so the consumers' inserts are not held back. */
export const transaction = false;

/** What the retention purge finds old inbox rows by (idempotency keys and reconciliation runs have theirs). */
export async function up(db: Knex): Promise<void> {
  await createIndexConcurrently(db, 'inbox_processed_at_brin', 'inbox USING brin (processed_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS inbox_processed_at_brin');
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
