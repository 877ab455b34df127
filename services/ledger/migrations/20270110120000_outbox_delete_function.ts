import type { Knex } from 'knex';

/**
 * `outbox_delete(message_ids)`, the delete of published rows, several times a second under load:
 * a function so that it runs with the planner kept on the outbox's indexes in the one round trip
 * a plain statement takes. The outbox's own migration makes it too; this one is for a table that
 * came before it.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE OR REPLACE FUNCTION outbox_delete(message_ids text[]) RETURNS void LANGUAGE sql SET enable_seqscan = off SET enable_bitmapscan = off
    AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP FUNCTION IF EXISTS outbox_delete(text[])');
}
