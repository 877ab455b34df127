import type { Options } from 'amqplib';
import type { Knex } from 'knex';
import type { Broker } from './amqp';
import { type Db, prepared, type SqlStatement, type Tx } from './db';
import { DependencyUnavailableError } from './dependency-errors';
import type { Logger } from './logger';
import { microBatch } from './micro-batch';
import { contextFrom, failSpan, type Span, SpanKind, startSpan, traceHeaders } from './tracing';

import { OUTBOX_TABLE, outboxColumnArrays, type OutboxMessage, PROPERTY_HEADERS } from './outbox-columns';
import { createOutboxUnansweredTable, unansweredInsertStatement } from './outbox-unanswered';

export { OUTBOX_TABLE, outboxColumnArrays, type OutboxMessage };

/** The outbox as the services' migrations make it, with its kept messages (outbox-unanswered.ts): for test databases. */
export async function createOutboxTable(db: Knex): Promise<void> {
  await db.schema.createTable(OUTBOX_TABLE, (table) => {
    table.bigIncrements('id').primary();
    table.text('message_id').notNullable().unique();
    table.text('exchange').notNullable();
    table.text('routing_key').notNullable();
    table.text('type').notNullable();
    table.text('payload').notNullable();
    table.jsonb('headers').notNullable().defaultTo('{}');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await createOutboxDeleteFunction(db);
  await createOutboxUnansweredTable(db);
}

/** The planner's paths turned off where the outbox is read along its indexes only (`alongOutboxIndexes`). */
const ALONG_INDEXES = ['enable_seqscan', 'enable_bitmapscan'] as const;

/**
 * `outbox_delete(message_ids)`, the delete of published rows, several times a second under load:
 * a function so that it runs with the settings `alongOutboxIndexes` explains in the one round
 * trip a plain statement takes (that helper's transaction costs three more, and most of a
 * delete's time). Created with the table (the services' migrations have it as SQL).
 */
export async function createOutboxDeleteFunction(db: Knex): Promise<void> {
  const settings = ALONG_INDEXES.map((setting) => `SET ${setting} = off`).join(' ');
  await db.raw(`CREATE OR REPLACE FUNCTION outbox_delete(message_ids text[]) RETURNS void LANGUAGE sql ${settings}
    AS $$ DELETE FROM ${OUTBOX_TABLE} WHERE message_id = ANY(message_ids) $$`);
}

/** A message on its way to the broker: what the outbox publishes, its body still text. */
export interface OutgoingMessage {
  exchange: string;
  routingKey: string;
  text: string;
  options: Options.Publish;
}

/**
 * What a service makes of each batch the relay is about to publish, its publish spans started:
 * the services that send ledger commands put several in one message.
 */
export type PrepareOutgoingBatch = (messages: OutgoingMessage[]) => OutgoingMessage[];

export interface OutboxRelayOptions {
  db: Db;
  broker: Broker;
  logger: Logger;
  batchSizeMax?: number;
  idleDelayMs?: number;
  deleteLingerMs?: number;
  /** By default a batch goes out as it is. */
  prepareBatch?: PrepareOutgoingBatch;
}

function messageOptions(message: OutboxMessage): Options.Publish {
  return {
    messageId: message.messageId,
    type: message.type,
    headers: message.headers ?? {},
    ...(message.replyTo !== undefined ? { replyTo: message.replyTo } : {}),
    ...(message.correlationId !== undefined ? { correlationId: message.correlationId } : {}),
  };
}

/** A message as the broker takes it, published as it was written rather than from its outbox row. */
export function outgoingOf(message: OutboxMessage): OutgoingMessage {
  return {
    exchange: message.exchange,
    routingKey: message.routingKey,
    text: message.payloadText ?? JSON.stringify(message.payload),
    options: messageOptions(message),
  };
}

function publishOptions(row: OutboxRow): Options.Publish {
  const { [PROPERTY_HEADERS.replyTo]: replyTo, [PROPERTY_HEADERS.correlationId]: correlationId, ...headers } = row.headers;
  return {
    messageId: row.message_id,
    type: row.type,
    headers,
    ...(replyTo !== undefined ? { replyTo } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
  };
}

/**
 * The insert of `messages` into the outbox as one statement with one array per column, however
 * many messages. With `onlyIfRowsIn`, the name of an earlier part of the caller's WITH
 * statement, the messages are written only when that part produced a row.
 */
export function outboxInsertStatement(messages: readonly OutboxMessage[], options: { onlyIfRowsIn?: string } = {}): SqlStatement {
  const condition = options.onlyIfRowsIn === undefined ? '' : ` WHERE EXISTS (SELECT 1 FROM ${options.onlyIfRowsIn})`;
  return {
    sql: `INSERT INTO ${OUTBOX_TABLE} (message_id, exchange, routing_key, type, payload, headers)
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[])${condition}`,
    bindings: outboxColumnArrays(messages),
  };
}

/**
 * The insert of `messages` as a part of the caller's WITH statement where each message belongs
 * to one row of an earlier part: message i is written only when `rowsIn` produced a row whose
 * `column` equals `keys[i]` (the commands of the records that statement inserted).
 */
export function outboxInsertForRowsStatement(
  messages: readonly OutboxMessage[],
  keys: readonly string[],
  rowsIn: { name: string; column: string },
): SqlStatement {
  if (keys.length !== messages.length) throw new Error(`${messages.length} outbox messages with ${keys.length} keys`);
  const plain = outboxInsertStatement(messages);
  return {
    sql: `INSERT INTO ${OUTBOX_TABLE} (message_id, exchange, routing_key, type, payload, headers)
     SELECT m.message_id, m.exchange, m.routing_key, m.type, m.payload, m.headers
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[]) AS m(message_id, exchange, routing_key, type, payload, headers, row_key)
     JOIN ${rowsIn.name} ON ${rowsIn.name}.${rowsIn.column} = m.row_key`,
    bindings: [...plain.bindings, keys] as unknown as readonly Knex.RawBinding[],
  };
}

/** Writes messages in the caller's transaction: they are published only if it commits. */
export async function enqueueOutbox(tx: Tx, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const statement = outboxInsertStatement(messages);
  await tx.raw(statement.sql, statement.bindings);
  const kept = unansweredInsertStatement(messages);
  if (kept) await tx.raw(kept.sql, kept.bindings);
}

/**
 * A producer span for each message written while a trace was active (its headers carry the
 * writer's context, kept in the outbox row), and the message's headers re-pointed at it: the
 * publish becomes a step of the request that wrote it, however much later the relay sends it.
 */
function publishSpans(messages: readonly OutgoingMessage[]): { messages: OutgoingMessage[]; started: Span[] } {
  const started: Span[] = [];
  const traced = messages.map((message) => {
    const headers = message.options.headers as Record<string, unknown> | undefined;
    if (typeof headers?.traceparent !== 'string') return message;
    const { span, context } = startSpan(`${message.exchange} publish`, {
      kind: SpanKind.PRODUCER,
      parent: contextFrom(headers),
      attributes: {
        'messaging.system': 'rabbitmq',
        'messaging.destination.name': message.exchange,
        'messaging.rabbitmq.destination.routing_key': message.routingKey,
        'messaging.message.id': String(message.options.messageId),
      },
    });
    started.push(span);
    return { ...message, options: { ...message.options, headers: { ...headers, ...traceHeaders(context) } } };
  });
  return { messages: traced, started };
}

/**
 * Runs `work` in a transaction whose statements reach the outbox's rows through its indexes only.
 * The outbox is a queue: after a burst its heap and its message-id index hold thousands of dead
 * pages, while its statistics, taken when few rows were live, call it small. Priced by them, a
 * delete of a few dozen message ids or a listing of the oldest rows scans every heap page, dead
 * ones included (several times a second under load); along an index each reads a few pages. The
 * settings end with the transaction, which writes nothing unless `work` does.
 */
export async function alongOutboxIndexes<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await prepared(tx, `SELECT ${ALONG_INDEXES.map((setting) => `set_config('${setting}', 'off', true)`).join(', ')}`);
    return work(tx);
  });
}

/** The message ids of the oldest `limit` rows, along the primary key. */
export function outboxListingStatement(limit: number): SqlStatement {
  return { sql: `SELECT message_id FROM ${OUTBOX_TABLE} ORDER BY id LIMIT CAST(? AS integer)`, bindings: [limit] };
}

/** The rows of published messages, by message id, along the message-id index. */
export function outboxDeleteStatement(messageIds: readonly string[]): SqlStatement {
  return { sql: `SELECT outbox_delete(CAST(? AS text[]))`, bindings: [messageIds] as unknown as readonly Knex.RawBinding[] };
}

interface OutboxRow {
  id: string;
  message_id: string;
  exchange: string;
  routing_key: string;
  type: string;
  payload: string;
  headers: Record<string, string>;
}

/**
 * Publishes committed outbox rows with publisher confirms, then deletes them: a row in the
 * outbox is a message not yet confirmed by the broker (deleting is cheaper than marking, and
 * the journal, not the outbox, is the record of what happened). A crash
 * between confirm and delete re-publishes on restart: consumers dedupe by message id.
 */
export class OutboxRelay {
  private running = false;
  private wakeUp: (() => void) | null = null;
  /** A wake that came while a pass was running: that pass may have missed the rows, so another runs at once. */
  private woken = false;
  private loop: Promise<void> | null = null;
  private readonly batchSizeMax: number;
  private readonly idleDelayMs: number;
  /** Messages their writer publishes itself right after its commit: passes leave their rows alone. */
  private readonly handedOver = new Set<string>();
  private readonly publishHandedOver: (message: OutboxMessage) => Promise<void>;
  /**
   * Rows of confirmed messages, deleted together a moment later: one DELETE for the commits of
   * many turns rather than one per turn. Until it runs, passes skip them (they stay handed over);
   * a crash in between publishes them again, which consumers dedupe by message id.
   */
  private readonly deletePublished: (messageId: string) => Promise<void>;
  /** Hand-overs whose publish or delete has not finished: `stop()` waits for them. */
  private readonly handOversInFlight = new Set<Promise<void>>();

  private readonly prepareBatch: PrepareOutgoingBatch;

  constructor(private readonly options: OutboxRelayOptions) {
    this.prepareBatch = options.prepareBatch ?? ((messages) => messages);
    this.batchSizeMax = options.batchSizeMax ?? 500;
    // Passes are the safety net: writers hand their messages over or wake the relay after their
    // commit, so a pass on its own finds only what a crashed instance or a failed publish left.
    this.idleDelayMs = options.idleDelayMs ?? 1_000;
    // Messages committed while a publish waits for its confirms go out together next, so ledger
    // commands of several turns share a message.
    this.publishHandedOver = microBatch((messages: OutboxMessage[]) => this.publishHandedOverNow(messages), {
      maxItems: this.batchSizeMax,
      concurrency: 2,
    });
    this.deletePublished = microBatch((messageIds: string[]) => this.deleteRows(messageIds), {
      maxItems: 5_000,
      lingerMs: options.deleteLingerMs ?? 50,
    });
  }

  /**
   * The fast path for a writer that knows the messages its statement puts in the outbox. Call it
   * before running the statement; after the commit, `committed()` publishes them at once (with
   * the others handed over in the same turn, or while two publishes awaited their confirms) and
   * deletes their rows with those of the next 50 ms in one statement, where a pass would take a
   * transaction, a select and a delete. `abandon()` when the statement failed or wrote nothing.
   * Rows whose publish fails stay for the passes, so nothing is lost; a pass of another
   * instance may publish one twice, which consumers already dedupe by message id.
   */
  handOver(messages: readonly OutboxMessage[]): { committed(): void; abandon(): void } {
    for (const message of messages) this.handedOver.add(message.messageId);
    const release = () => {
      for (const message of messages) this.handedOver.delete(message.messageId);
    };
    return {
      committed: () => {
        // A row is deleted once its message is confirmed; until then (and until deleted) passes skip it.
        const settled = Promise.all(
          messages.map((message) => this.publishHandedOver(message).then(() => this.deletePublished(message.messageId))),
        )
          .then(
            () => undefined,
            (error: unknown) => {
              this.options.logger.warn({ err: error }, 'publishing committed outbox messages failed; the relay passes take them');
              this.wake();
            },
          )
          .finally(() => {
            release();
            this.handOversInFlight.delete(settled);
          });
        this.handOversInFlight.add(settled);
      },
      abandon: release,
    };
  }

  private async publishHandedOverNow(messages: OutboxMessage[]): Promise<void[]> {
    if (!this.options.broker.isConnected) throw new DependencyUnavailableError('broker', 'broker is not connected');
    await this.publish(messages.map(outgoingOf));
    return messages.map(() => undefined);
  }

  /** Confirmed once the broker has every message, as `prepareBatch` made them. */
  private async publish(messages: OutgoingMessage[]): Promise<void> {
    const spans = publishSpans(messages);
    try {
      await this.options.broker.publishBatch(
        this.prepareBatch(spans.messages).map((message) => ({
          exchange: message.exchange,
          routingKey: message.routingKey,
          body: Buffer.from(message.text),
          options: message.options,
        })),
      );
    } catch (error) {
      for (const span of spans.started) failSpan(span, error);
      throw error;
    } finally {
      for (const span of spans.started) span.end();
    }
  }

  private async deleteRows(messageIds: string[]): Promise<void[]> {
    const statement = outboxDeleteStatement(messageIds);
    await prepared(this.options.db, statement.sql, statement.bindings);
    return messageIds.map(() => undefined);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Called after a commit that enqueued messages, so they go out without waiting for the poll. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /**
   * Ends the passes and waits for the hand-overs under way, their lingering deletes included,
   * so that nothing touches the database or the broker after the caller closes them.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all([...this.handOversInFlight]);
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let published = 0;
      try {
        published = await this.publishOnce();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'outbox relay pass failed');
      }
      if (published < this.batchSizeMax && this.running && !this.woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.idleDelayMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeUp = null;
      }
    }
  }

  /**
   * One pass: returns how many rows it published. Rows this instance handed over are neither
   * locked nor read whole (under load they are most of the table, and locking them wrote to
   * every one): the pass first lists the oldest rows' message ids along the primary key, and a
   * pass that finds none but handed-over ones locks and writes nothing, which is every idle pass.
   */
  async publishOnce(): Promise<number> {
    if (!this.options.broker.isConnected) return 0;
    return alongOutboxIndexes(this.options.db, async (tx) => {
      const listing = outboxListingStatement(this.batchSizeMax + this.handedOver.size);
      const listed = await prepared<{ rows: Array<{ message_id: string }> }>(tx, listing.sql, listing.bindings);
      const waiting = listed.rows.map((row) => row.message_id).filter((messageId) => !this.handedOver.has(messageId));
      if (waiting.length === 0) return 0;
      const selected = await prepared<{ rows: OutboxRow[] }>(
        tx,
        `SELECT id, message_id, exchange, routing_key, type, payload, headers FROM ${OUTBOX_TABLE}
         WHERE message_id = ANY(CAST(? AS text[])) ORDER BY id FOR UPDATE SKIP LOCKED`,
        [waiting.slice(0, this.batchSizeMax)],
      );
      // Handed over since the pass began: their writer publishes them.
      const rows = selected.rows.filter((row) => !this.handedOver.has(row.message_id));
      if (rows.length === 0) return 0;
      await this.publish(
        rows.map((row) => ({ exchange: row.exchange, routingKey: row.routing_key, text: row.payload, options: publishOptions(row) })),
      );
      await prepared(tx, `DELETE FROM ${OUTBOX_TABLE} WHERE id = ANY(CAST(? AS bigint[]))`, [
        rows.map((row) => row.id),
      ] as unknown as Knex.RawBinding[]);
      return rows.length;
    });
  }
}
