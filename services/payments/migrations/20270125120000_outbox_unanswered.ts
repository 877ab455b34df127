import type { Knex } from 'knex';

/**
 * The ledger commands sent and not yet answered, kept until their result is recorded and sent
 * again while none comes (kit's outbox-unanswered.ts, docs/operations.md): a command the ledger
 * took and then lost with a restore of its database is not left pending for good. Kept until
 * answered.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE outbox_unanswered (
      message_id  text PRIMARY KEY,
      exchange    text NOT NULL,
      routing_key text NOT NULL,
      type        text NOT NULL,
      payload     text NOT NULL,
      headers     jsonb NOT NULL DEFAULT '{}',
      sent_at     timestamptz NOT NULL DEFAULT now(),
      resent      integer NOT NULL DEFAULT 0
    );
    CREATE INDEX outbox_unanswered_sent_at ON outbox_unanswered (sent_at);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS outbox_unanswered');
}
