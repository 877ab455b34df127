import type { Knex } from 'knex';

/**
 * Which ledger database (shard) holds each partition (docs/scaling.md, "Ledger shards"). Read in
 * shard 0, beside the tenant directory; created on every shard, as every migration is, and empty
 * elsewhere. Kept whole: one row per partition.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE ledger_partition_shards (
      partition  integer PRIMARY KEY CHECK (partition >= 0),
      shard      integer NOT NULL CHECK (shard >= 0),
      mapped_at  timestamptz NOT NULL DEFAULT now()
    )
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS ledger_partition_shards');
}
