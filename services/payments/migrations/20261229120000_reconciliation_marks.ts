import type { Knex } from 'knex';

/**
 * Check 3's marks (how far payments' records and the entries naming them were verified), and
 * indexes for check 4: the unused statement lines of a scope in id order, and across scopes.
 * Background full runs are recorded beside the scheduled ones.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS reconciliation_marks (
      tenant_id            text NOT NULL,
      environment          text NOT NULL,
      reference_type       text NOT NULL,
      record_verified_seq  bigint NOT NULL DEFAULT 0,
      record_seen_seq      bigint NOT NULL DEFAULT 0,
      record_seen_xmax     bigint NOT NULL DEFAULT 0,
      entry_verified_seq   bigint NOT NULL DEFAULT 0,
      entry_seen_seq       bigint NOT NULL DEFAULT 0,
      entry_seen_xmax      bigint NOT NULL DEFAULT 0,
      -- Records still open when last read, created within the lookback: [{"id", "createdAt"}].
      open_records         jsonb NOT NULL DEFAULT '[]',
      PRIMARY KEY (tenant_id, environment, reference_type)
    );
  `);
  await db.raw(`
    CREATE INDEX IF NOT EXISTS bank_statement_lines_unused_scope ON bank_statement_lines (tenant_id, environment, id) WHERE deposit_id IS NULL;
    CREATE INDEX IF NOT EXISTS bank_statement_lines_unused ON bank_statement_lines (id) WHERE deposit_id IS NULL;
  `);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS reconciliation_full_runs (
      id           text PRIMARY KEY,
      tenant_id    text,
      environment  text,
      state        text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
      progress     jsonb NOT NULL DEFAULT '{}',
      result       jsonb,
      error        text,
      created_at   timestamptz NOT NULL DEFAULT now(),
      started_at   timestamptz,
      finished_at  timestamptz
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(
    'DROP TABLE IF EXISTS reconciliation_marks, reconciliation_full_runs; DROP INDEX IF EXISTS bank_statement_lines_unused_scope, bank_statement_lines_unused',
  );
}
