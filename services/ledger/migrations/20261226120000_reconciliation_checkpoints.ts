import type { Knex } from 'knex';

/**
 * Reconciliation state, written only by the ledger's own reconciliation runs (never by posting):
 * what checks 1 and 2 already verified, so a run reads only what came after.
 *
 * - reconciliation_account_checkpoints: per account, the seq of the last line summed and the
 *   sum of its lines up to there (in the account's normal direction).
 * - reconciliation_scope_checkpoints: per tenant and environment, the seq up to which every
 *   entry is final and verified (verified_seq), the debit and credit totals per currency up to
 *   there, and the highest seq the last run saw with that run's snapshot xmax: once every
 *   transaction running then has ended, the entries up to seen_seq are final too.
 * - reconciliation_full_runs: background re-verifications from zero, with their progress.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS reconciliation_account_checkpoints (
      account_id    text PRIMARY KEY,
      verified_seq  bigint NOT NULL,
      verified_sum  numeric NOT NULL
    );
    CREATE TABLE IF NOT EXISTS reconciliation_scope_checkpoints (
      tenant_id     text NOT NULL,
      environment   text NOT NULL,
      verified_seq  bigint NOT NULL DEFAULT 0,
      totals        jsonb NOT NULL DEFAULT '{}',
      seen_seq      bigint NOT NULL DEFAULT 0,
      seen_xmax     bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, environment)
    );

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
  await db.raw('DROP TABLE IF EXISTS reconciliation_account_checkpoints, reconciliation_scope_checkpoints, reconciliation_full_runs');
}
