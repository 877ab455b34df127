import type { Knex } from 'knex';
import type { Db, SqlStatement, Tx } from './db';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { OUTBOX_TABLE, outboxColumnArrays, type OutboxMessage } from './outbox-columns';
import { type Repeating, startRepeating } from './repeating';

/**
 * Messages that expect an answer (`OutboxMessage.untilAnswered`: the ledger's commands), kept
 * from the transaction that wrote them until their answer is recorded. The outbox forgets a
 * message once the broker has it; this table remembers it until its consumer has answered, so a
 * message lost after the broker took it is sent again: one the broker lost, one consumed by a
 * database that was then restored to a moment before (docs/operations.md). Kept until answered;
 * each service that sends such messages creates the table in a migration of its own.
 */
export const UNANSWERED_TABLE = 'outbox_unanswered';

/** The table, for a database made outside the services' migrations (theirs spell it as frozen SQL). */
export async function createOutboxUnansweredTable(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${UNANSWERED_TABLE} (
      message_id  text PRIMARY KEY,
      exchange    text NOT NULL,
      routing_key text NOT NULL,
      type        text NOT NULL,
      payload     text NOT NULL,
      headers     jsonb NOT NULL DEFAULT '{}',
      sent_at     timestamptz NOT NULL DEFAULT now(),
      resent      integer NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS ${UNANSWERED_TABLE}_sent_at ON ${UNANSWERED_TABLE} (sent_at);
  `);
}

const COLUMNS = 'message_id, exchange, routing_key, type, payload, headers';

function kept(messages: readonly OutboxMessage[]): OutboxMessage[] {
  return messages.filter((message) => message.untilAnswered === true);
}

/** The insert of the messages that expect an answer, as a statement of its own; null when none does. */
export function unansweredInsertStatement(messages: readonly OutboxMessage[]): SqlStatement | null {
  const expecting = kept(messages);
  if (expecting.length === 0) return null;
  return {
    sql: `INSERT INTO ${UNANSWERED_TABLE} (${COLUMNS})
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[]) ON CONFLICT (message_id) DO NOTHING`,
    bindings: outboxColumnArrays(expecting),
  };
}

/**
 * The same as a part of the caller's WITH statement, beside the outbox's insert of the same
 * messages (outboxInsertForRowsStatement): message i is kept only when `rowsIn` produced a row
 * whose `column` equals `keys[i]`. Null when no message expects an answer.
 */
export function unansweredInsertForRowsStatement(
  messages: readonly OutboxMessage[],
  keys: readonly string[],
  rowsIn: { name: string; column: string },
): SqlStatement | null {
  const expecting = messages.flatMap((message, index) => (message.untilAnswered === true ? [{ message, key: keys[index] }] : []));
  if (expecting.length === 0) return null;
  return {
    sql: `INSERT INTO ${UNANSWERED_TABLE} (${COLUMNS})
     SELECT m.message_id, m.exchange, m.routing_key, m.type, m.payload, m.headers
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[]) AS m(message_id, exchange, routing_key, type, payload, headers, row_key)
     JOIN ${rowsIn.name} ON ${rowsIn.name}.${rowsIn.column} = m.row_key
     ON CONFLICT (message_id) DO NOTHING`,
    bindings: [
      ...outboxColumnArrays(expecting.map((each) => each.message)),
      expecting.map((each) => each.key),
    ] as readonly Knex.RawBinding[],
  };
}

/** Their answers are recorded, in the caller's transaction: nothing sends them again. */
export async function markAnswered(tx: Tx, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length === 0) return;
  await tx.raw(`DELETE FROM ${UNANSWERED_TABLE} WHERE message_id = ANY(?::text[])`, [[...messageIds]]);
}

/** Messages re-sent per pass at most; a pass goes on while a whole batch was due. */
const RESEND_BATCH = 500;
/**
 * Times a message is sent again at most. One its consumer keeps failing (it is dead-lettered
 * each time) stops coming back after this many; its row stays, with its record pending, for the
 * operator (docs/operations.md, dead letters).
 */
export const RESEND_MAX = 12;

/**
 * Puts the messages unanswered for `afterMs` back in the outbox under their own message ids,
 * those the outbox still holds unsent excepted, and counts them sent again from now. Each
 * instance takes the rows no other is taking (`SKIP LOCKED`). Returns how many went back.
 */
export async function resendUnanswered(db: Db, afterMs: number, limit = RESEND_BATCH): Promise<number> {
  const result = await db.raw<{ rows: Array<{ message_id: string }> }>(
    `WITH due AS (
       SELECT ${COLUMNS} FROM ${UNANSWERED_TABLE} u
        WHERE sent_at < now() - (? * interval '1 millisecond') AND resent < ${RESEND_MAX}
          AND NOT EXISTS (SELECT 1 FROM ${OUTBOX_TABLE} o WHERE o.message_id = u.message_id)
        ORDER BY sent_at LIMIT ? FOR UPDATE SKIP LOCKED
     ), again AS (
       INSERT INTO ${OUTBOX_TABLE} (${COLUMNS}) SELECT ${COLUMNS} FROM due ON CONFLICT (message_id) DO NOTHING RETURNING message_id
     )
     UPDATE ${UNANSWERED_TABLE} u SET sent_at = now(), resent = u.resent + 1 FROM again WHERE u.message_id = again.message_id
     RETURNING u.message_id`,
    [afterMs, limit],
  );
  return result.rows.length;
}

/** Sends the unanswered messages again every so often (a tenth of the wait, at most a minute); how to stop it. */
export function startUnansweredResending(options: {
  db: Db;
  /** The outbox relay, woken when messages went back in. */
  relay: { wake(): void };
  logger: Logger;
  metrics: ServiceMetrics;
  afterMs: number;
}): Repeating {
  const resent = options.metrics.counter(
    'outbox_unanswered_resent_total',
    'Messages expecting an answer (ledger commands) sent again because none came within OUTBOX_RESEND_UNANSWERED_AFTER_MS',
  );
  return startRepeating(
    async () => {
      let count = RESEND_BATCH;
      while (count === RESEND_BATCH) {
        count = await resendUnanswered(options.db, options.afterMs);
        resent.inc(count);
        if (count > 0) {
          options.logger.warn({ messages: count }, 'messages unanswered past OUTBOX_RESEND_UNANSWERED_AFTER_MS sent again');
          options.relay.wake();
        }
      }
    },
    {
      intervalMs: Math.min(60_000, Math.max(500, Math.floor(options.afterMs / 10))),
      onError: (error) => options.logger.warn({ err: error }, 'sending unanswered messages again failed; retried on the next round'),
    },
  );
}
