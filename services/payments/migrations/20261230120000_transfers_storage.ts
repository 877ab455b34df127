import type { Knex } from 'knex';

/** Built concurrently, outside a transaction: transfers keep being written while the indexes change. */
export const transaction = false;

/**
 * Transfers are kept for ever, so their bytes add up.
 *
 * - fillfactor 85: a pending row grows by its entry id and finish time when the ledger answers;
 *   with room left on its page that update is HOT and adds no entry to any index (at 100 most
 *   were not, and every index held two entries for such a row until a vacuum, then the space).
 * - (tenant_id, environment, seq) ascending: new rows go at the end of their scope's range, where
 *   a page split leaves the old page full; descending, they went at its start and every split
 *   left a page half empty for good. Lists newest first read it backwards.
 * - the wallet lists' indexes hold a 64-bit hash of the wallet id instead of its 29 characters;
 *   the list still compares the id itself, so a collision costs a row read, never a wrong row.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE transfers SET (fillfactor = 85)');
  await createIndexConcurrently(db, 'transfers_scope_seq', 'transfers (tenant_id, environment, seq)');
  await createIndexConcurrently(db, 'transfers_from_wallet_hash_seq', 'transfers (hashtextextended(from_wallet_id, 0), seq)');
  await createIndexConcurrently(db, 'transfers_to_wallet_hash_seq', 'transfers (hashtextextended(to_wallet_id, 0), seq)');
  for (const old of ['transfers_tenant_seq', 'transfers_from_wallet_seq', 'transfers_to_wallet_seq'])
    await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${old}`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE transfers RESET (fillfactor)');
  await createIndexConcurrently(db, 'transfers_tenant_seq', 'transfers (tenant_id, environment, seq DESC)');
  await createIndexConcurrently(db, 'transfers_from_wallet_seq', 'transfers (from_wallet_id, seq DESC)');
  await createIndexConcurrently(db, 'transfers_to_wallet_seq', 'transfers (to_wallet_id, seq DESC)');
  for (const index of ['transfers_scope_seq', 'transfers_from_wallet_hash_seq', 'transfers_to_wallet_hash_seq'])
    await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
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
