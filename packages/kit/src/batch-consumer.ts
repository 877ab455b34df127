import type { Broker, Channel, ConsumeMessage } from './amqp';
import { runWithContext } from './context';
import type { Logger } from './logger';
import { applyDeliveryBatch } from './transient-retry';

export interface BatchConsumerOptions<Message> {
  broker: Broker;
  logger: Logger;
  queue: string;
  /** What a batch is, in logs ("analytics batch"). */
  what: string;
  /** The message, or null for one that can never be applied (dead-lettered at once). */
  parse(content: Buffer): Message | null;
  /** Applies a batch in one transaction; it must be idempotent, as a redelivery applies a message again. */
  apply(messages: readonly Message[]): Promise<void>;
  /** The correlation id a batch's logs carry. */
  correlationIdOf(first: Message): string;
  batchSizeMax?: number;
  /** How long a batch gathers messages before it is applied: a busy queue then costs one transaction per batch, not per message. */
  lingerMs?: number;
}

interface Delivery<Message> {
  message: ConsumeMessage;
  channel: Channel;
  parsed: Message;
}

export interface BatchConsumer {
  /** Applies what has gathered, gives up a batch still retrying through an outage (redelivered later) and waits (shutdown). */
  stop(): Promise<void>;
}

function deadLetter(logger: Logger, message: ConsumeMessage, channel: Channel): void {
  try {
    channel.nack(message, false, false);
  } catch (error) {
    logger.warn({ err: error }, 'a malformed message could not be dead-lettered; it will be redelivered');
  }
}

function parsedOrNull<Message>(options: BatchConsumerOptions<Message>, content: Buffer): Message | null {
  try {
    return options.parse(content);
  } catch {
    return null;
  }
}

/**
 * Consumes a durable queue in batches, each applied in one transaction and acknowledged only
 * after it commits (applyDeliveryBatch): an outage stalls the batch at no delivery attempt's cost,
 * and a message that fails by itself is requeued alone, until the queue's delivery limit parks it
 * in the dead-letter queue. Batches are applied one at a time, in arrival order.
 */
export async function startBatchConsumer<Message>(options: BatchConsumerOptions<Message>): Promise<BatchConsumer> {
  const batchSizeMax = options.batchSizeMax ?? 64;
  const lingerMs = options.lingerMs ?? 100;
  let gathering: Array<Delivery<Message>> = [];
  let timer: NodeJS.Timeout | null = null;
  let applying: Promise<void> = Promise.resolve();
  const stopping = new AbortController();

  const apply = async (batch: Array<Delivery<Message>>): Promise<void> => {
    const first = batch[0];
    if (!first) return;
    await runWithContext({ correlationId: options.correlationIdOf(first.parsed) }, async () => {
      await applyDeliveryBatch(batch, (deliveries) => options.apply(deliveries.map((delivery) => delivery.parsed)), {
        logger: options.logger,
        what: options.what,
        signal: stopping.signal,
      });
    });
  };

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = gathering;
    gathering = [];
    if (batch.length > 0) applying = applying.then(() => apply(batch));
  }

  await options.broker.consume({
    queue: options.queue,
    prefetch: batchSizeMax * 2,
    onMessage: (message, channel) => {
      const parsed = parsedOrNull(options, message.content);
      if (parsed === null) {
        options.logger.error(
          { queue: options.queue, messageId: message.properties.messageId as unknown },
          'malformed message dead-lettered',
        );
        deadLetter(options.logger, message, channel);
        return;
      }
      gathering.push({ message, channel, parsed });
      if (gathering.length >= batchSizeMax) flush();
      else timer ??= setTimeout(flush, lingerMs).unref();
    },
  });

  return {
    async stop() {
      stopping.abort();
      flush();
      await applying;
    },
  };
}
