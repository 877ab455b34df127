import type { Knex } from 'knex';

/**
 * The partition directory and the partitions' writer epochs (docs/scaling.md, "Ledger
 * partitions"). Both are kept whole: one row per tenant and one per partition, the platform's
 * placement, which no history grows.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE ledger_tenant_partitions (
      tenant_id  text PRIMARY KEY,
      partition  integer NOT NULL CHECK (partition >= 0),
      placed_at  timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE ledger_partition_epochs (
      partition   integer PRIMARY KEY CHECK (partition >= 0),
      epoch       bigint NOT NULL,
      writer      text NOT NULL,
      claimed_at  timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS ledger_partition_epochs; DROP TABLE IF EXISTS ledger_tenant_partitions');
}
