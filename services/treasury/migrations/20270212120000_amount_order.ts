import type { Knex } from 'knex';

/** Built concurrently, outside a transaction: withdrawals and float deposits keep arriving while they are built. */
export const transaction = false;

/**
 * The money lists sort by amount (docs/decisions/list-sorting.md): each reads a scope's records
 * along its amount index, in either direction, from a cursor's (amount, seq) on, as it reads them
 * along seq by creation. Without them a page by amount would sort the scope's whole history.
 */
const INDEXES = [
  ['withdrawals_scope_amount_seq', 'withdrawals (tenant_id, environment, amount, seq)'],
  ['float_deposits_scope_amount_seq', 'float_deposits (tenant_id, environment, amount, seq)'],
] as const;

export async function up(db: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) await createIndexConcurrently(db, name, definition);
}

export async function down(db: Knex): Promise<void> {
  for (const [name] of INDEXES) await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
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
