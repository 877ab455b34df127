import type { Knex } from 'knex';
import type { z } from 'zod';
import type { Broker, Channel, ConsumeMessage } from './amqp';
import { runWithContext } from './context';
import type { Db, Tx } from './db';
import type { Logger } from './logger';
import { RetryStoppedError, retryTransientFailures } from './transient-retry';

export const INBOX_TABLE = 'inbox';

export async function createInboxTable(db: Knex): Promise<void> {
  await db.schema.createTable(INBOX_TABLE, (table) => {
    table.text('message_id').primary();
    table.text('type').notNullable();
    table.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

/**
 * Runs `work` at most once per message id: the id is claimed with ON CONFLICT DO NOTHING in the
 * same transaction as the work, so a redelivery after a crash either finds it done or redoes it.
 */
export async function processOnce(
  db: Db,
  message: { messageId: string; type: string },
  work: (tx: Tx) => Promise<void>,
): Promise<'processed' | 'duplicate'> {
  return db.transaction(async (tx) => {
    const claimed = await tx(INBOX_TABLE)
      .insert({ message_id: message.messageId, type: message.type })
      .onConflict('message_id')
      .ignore()
      .returning('message_id');
    if (claimed.length === 0) return 'duplicate';
    await work(tx);
    return 'processed';
  });
}

export interface IdempotentConsumerOptions<Schema extends z.ZodType> {
  broker: Broker;
  db: Db;
  logger: Logger;
  queue: string;
  schema: Schema;
  prefetch?: number;
  messageIdOf: (message: z.infer<Schema>) => string;
  handle: (tx: Tx, message: z.infer<Schema>) => Promise<void>;
}

/**
 * Consumes typed messages exactly once in effect: parse (a malformed message is dead-lettered
 * at once), claim the id, do the work, ack. A transient failure (the database down for a
 * moment) is retried in place with backoff, the message unacknowledged, so it costs no
 * delivery attempt; a handler failing for a reason of its own is requeued, and the queue's
 * delivery limit parks it in the dead-letter queue if it keeps failing.
 */
export async function consumeIdempotently<Schema extends z.ZodType>(options: IdempotentConsumerOptions<Schema>): Promise<void> {
  await options.broker.consume({
    queue: options.queue,
    prefetch: options.prefetch ?? 16,
    onMessage: async (raw: ConsumeMessage, channel: Channel, channelClosed: AbortSignal) => {
      let parsed: z.infer<Schema>;
      try {
        const result = options.schema.safeParse(JSON.parse(raw.content.toString('utf8')));
        if (!result.success) throw result.error;
        parsed = result.data;
      } catch (error) {
        options.logger.error({ err: error, queue: options.queue }, 'malformed message dead-lettered');
        channel.nack(raw, false, false);
        return;
      }
      const correlationId = (raw.properties.correlationId as string | undefined) ?? options.messageIdOf(parsed);
      await runWithContext({ correlationId }, async () => {
        const message = { messageId: options.messageIdOf(parsed), type: String(raw.properties.type ?? options.queue) };
        try {
          const outcome = await retryTransientFailures(() => processOnce(options.db, message, (tx) => options.handle(tx, parsed)), {
            logger: options.logger,
            what: `message of ${options.queue}`,
            signal: channelClosed,
          });
          options.logger.debug({ outcome, queue: options.queue }, 'message consumed');
          channel.ack(raw);
        } catch (error) {
          // Its channel is gone: the broker redelivers it on the next one.
          if (error instanceof RetryStoppedError) return;
          options.logger.warn({ err: error, queue: options.queue }, 'message handling failed; requeued');
          channel.nack(raw, false, true);
        }
      });
    },
  });
}
