import type { Knex } from 'knex';

/** Check 3's marks: how far treasury's own records, and the entries naming them, were verified. */
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
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS reconciliation_marks');
}
