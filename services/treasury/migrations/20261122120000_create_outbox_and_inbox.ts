import type { Knex } from 'knex';

// First of all: the outbox carries posting commands to the ledger in the same transaction as
// the business record, and the inbox makes the ledger's events finish a record exactly once.
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE outbox (
      id           bigserial PRIMARY KEY,
      message_id   text NOT NULL,
      exchange     text NOT NULL,
      routing_key  text NOT NULL,
      type         text NOT NULL,
      payload      text NOT NULL,
      headers      jsonb NOT NULL DEFAULT '{}',
      created_at   timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
    );
    ALTER TABLE outbox ADD CONSTRAINT outbox_message_id_unique UNIQUE (message_id);
    -- The delete of published rows, several times a second under load: a function, so that it runs
    -- with the planner kept on the outbox's indexes in the one round trip a plain statement takes.
    CREATE OR REPLACE FUNCTION outbox_delete(message_ids text[]) RETURNS void LANGUAGE sql SET enable_seqscan = off SET enable_bitmapscan = off
      AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$;
  `);
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
  await db.raw('DROP TABLE inbox; DROP TABLE outbox');
}
