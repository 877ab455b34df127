import type { Knex } from 'knex';

/** Ids of consumed messages (audit records from other services), so a redelivery records nothing twice. */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE inbox (
      message_id    text,
      type          text NOT NULL,
      processed_at  timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
      CONSTRAINT inbox_pkey PRIMARY KEY (message_id)
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS inbox');
}
