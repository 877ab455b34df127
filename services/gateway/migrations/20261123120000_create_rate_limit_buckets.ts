import type { Knex } from 'knex';

/**
 * Token buckets shared by every gateway instance. Each row carries the policy it was last
 * checked with, so the purge knows when an idle bucket has refilled (and is worth nothing).
 *
 * UNLOGGED: a crash empties the table, which only hands every caller a full bucket; in
 * exchange the update of every checked request writes no WAL. No index on updated_at, so
 * those updates stay HOT (fillfactor leaves them room); the purge scans a table of live
 * buckets only.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE UNLOGGED TABLE rate_limit_buckets (
      bucket_key       text PRIMARY KEY,
      tokens           double precision NOT NULL,
      rate_per_second  double precision NOT NULL CHECK (rate_per_second > 0),
      burst            double precision NOT NULL CHECK (burst >= 1),
      updated_at       timestamptz NOT NULL
    ) WITH (fillfactor = 70)
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('rate_limit_buckets');
}
