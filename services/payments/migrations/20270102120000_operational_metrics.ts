import type { Knex } from 'knex';

/** Built concurrently, outside a transaction: idempotency keys keep being written while the index is built. */
export const transaction = false;

/** What /metrics reads the records still waiting for the ledger and the idempotency keys in flight by. */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- Records whose request stopped waiting for the ledger's reply (answered 202), from when their
    -- command was sent: the oldest one still waiting is found without an index on the records' status.
    CREATE TABLE IF NOT EXISTS awaiting_ledger (
      record_type  text NOT NULL,
      record_id    text NOT NULL,
      since        timestamptz NOT NULL,
      PRIMARY KEY (record_type, record_id)
    );
    CREATE INDEX IF NOT EXISTS awaiting_ledger_since ON awaiting_ledger (record_type, since);
  `);
  await createIndexConcurrently(db, 'idempotency_keys_in_flight', `idempotency_keys (created_at) WHERE status = 'in_progress'`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`DROP INDEX IF EXISTS idempotency_keys_in_flight; DROP TABLE IF EXISTS awaiting_ledger`);
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
