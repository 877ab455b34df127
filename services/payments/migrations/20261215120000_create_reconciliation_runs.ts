import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  // One row per scheduled all-tenant run. `round_at` is the schedule's round the run was for: an
  // instance that takes the advisory lock after another one finished finds the round here and skips it.
  await db.raw(`
    CREATE TABLE reconciliation_runs (
      id text PRIMARY KEY,
      round_at timestamptz NOT NULL,
      started_at timestamptz NOT NULL,
      finished_at timestamptz NOT NULL,
      status text NOT NULL CHECK (status IN ('ok', 'mismatch', 'error')),
      mismatch_counts jsonb,
      result jsonb,
      error text,
      CHECK ((status = 'error') = (error IS NOT NULL)),
      CHECK ((status = 'error') = (mismatch_counts IS NULL))
    )`);
  await db.raw('CREATE INDEX reconciliation_runs_round ON reconciliation_runs (round_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS reconciliation_runs');
}
