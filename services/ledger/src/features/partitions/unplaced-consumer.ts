import type { Options } from 'amqplib';
import { ledgerPartitionQueue, TOPOLOGY } from '@wallet/contracts';
import {
  type Broker,
  type ConsumeMessage,
  type Db,
  isTransientFailure,
  type Logger,
  RetryStoppedError,
  retryTransientFailures,
} from '@wallet/kit';
import { placeAndBind } from './partition-directory';

/** Headers the broker adds on a delivery, which the forwarded copy must not carry over. */
const BROKER_HEADERS = new Set(['x-death', 'x-delivery-count', 'x-first-death-exchange', 'x-first-death-queue', 'x-first-death-reason']);

/**
 * The tenant a command message is for: a lone command's, or the first of a `ledger.commands.v1`
 * envelope's (the commands of one message share a tenant). Null when the message names none.
 */
export function tenantOfMessage(content: Buffer): string | null {
  let body: unknown;
  try {
    body = JSON.parse(content.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const record = body as { tenantId?: unknown; commands?: Array<{ command?: { tenantId?: unknown } }> };
  const tenantId = Array.isArray(record.commands) ? record.commands[0]?.command?.tenantId : record.tenantId;
  return typeof tenantId === 'string' && tenantId !== '' ? tenantId : null;
}

/**
 * Commands of tenants the exchange has no binding for yet land in the unplaced queue (the
 * exchange's alternate). Each is placed (the directory, then the binding, so the tenant's next
 * commands go straight to its partition) and forwarded to its partition's queue, confirmed before
 * it is acked. A message naming no tenant, or one that cannot be placed, goes to partition 0, whose writer answers or
 * dead-letters it like any other. One at a time, in queue order: a single active consumer.
 */
export async function startUnplacedConsumer(options: { broker: Broker; db: Db; logger: Logger; partitions: number }): Promise<void> {
  let turn: Promise<void> = Promise.resolve();
  await options.broker.consume({
    queue: TOPOLOGY.ledgerCommands.unplacedQueue,
    prefetch: 50,
    onMessage: (message, channel, channelClosed) => {
      turn = turn.then(async () => {
        try {
          await retryTransientFailures(() => forward(options, message), {
            logger: options.logger,
            what: 'placing a tenant',
            signal: channelClosed,
          });
          channel.ack(message);
        } catch (error) {
          // Stopped mid-outage: unacked, the message is delivered again.
          if (error instanceof RetryStoppedError) return;
          options.logger.error({ err: error }, 'unplaced ledger command could not be forwarded; requeued');
          channel.nack(message, false, true);
        }
      });
    },
  });
}

async function forward(options: { broker: Broker; db: Db; logger: Logger; partitions: number }, message: ConsumeMessage): Promise<void> {
  const tenantId = tenantOfMessage(message.content);
  const partition = tenantId === null ? 0 : await placed(options, tenantId);
  await options.broker.publish('', ledgerPartitionQueue(partition), message.content, forwardedProperties(message));
}

/** The tenant's partition; 0 for an id the directory refuses (a NUL character), whose commands partition 0's writer refuses in turn. */
async function placed(options: { broker: Broker; db: Db; logger: Logger; partitions: number }, tenantId: string): Promise<number> {
  try {
    const partition = await placeAndBind(options, tenantId);
    options.logger.info({ tenantId, partition }, 'tenant placed on a ledger partition');
    return partition;
  } catch (error) {
    if (isTransientFailure(error)) throw error;
    options.logger.warn({ err: error, tenantId }, 'tenant id cannot be placed; its command goes to partition 0');
    return 0;
  }
}

function forwardedProperties(message: ConsumeMessage): Options.Publish {
  const { properties } = message;
  const headers = Object.fromEntries(Object.entries(properties.headers ?? {}).filter(([name]) => !BROKER_HEADERS.has(name)));
  const kept = {
    contentType: properties.contentType as string | undefined,
    correlationId: properties.correlationId as string | undefined,
    replyTo: properties.replyTo as string | undefined,
    messageId: properties.messageId as string | undefined,
    type: properties.type as string | undefined,
    timestamp: properties.timestamp as number | undefined,
    headers,
  };
  return Object.fromEntries(Object.entries(kept).filter(([, value]) => value !== undefined));
}
