import { randomUUID } from 'node:crypto';
import { type ApiKeyChangedV1, apiKeyChangedV1Schema, TOPOLOGY } from '@wallet/contracts';
import { type Broker, type Channel, declareIdentityEvents, type Logger } from '@wallet/kit';
import type { KeyCache } from './key-cache';

/**
 * Each gateway instance has its own queue: every instance must drop its own cache of a changed
 * key. Exclusive and auto-delete, so it lives exactly as long as the connection; the name is
 * fixed per process so the consumer finds it again after a reconnect.
 */
export function apiKeyChangesQueueName(): string {
  return `gateway.api-key-changes.${randomUUID()}`;
}

/** Runs on every (re)connect: changes published while we were disconnected were lost, so the cache goes too. */
export function apiKeyChangesTopology(queue: string, keys: KeyCache): (channel: Channel) => Promise<void> {
  return async (channel) => {
    await declareIdentityEvents(channel);
    await channel.assertQueue(queue, { exclusive: true, autoDelete: true, durable: false });
    await channel.bindQueue(queue, TOPOLOGY.identityEvents.exchange, TOPOLOGY.identityEvents.apiKeyChangedRoutingKey);
    keys.clear();
  };
}

function parseChange(content: Buffer): ApiKeyChangedV1 | null {
  try {
    const parsed = apiKeyChangedV1Schema.safeParse(JSON.parse(content.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function consumeApiKeyChanges(broker: Broker, queue: string, keys: KeyCache, logger: Logger): Promise<void> {
  await broker.consume({
    queue,
    prefetch: 50,
    onMessage: (message, channel) => {
      const change = parseChange(message.content);
      if (change) {
        keys.invalidate(change.keyId);
        logger.debug({ keyId: change.keyId, change: change.change }, 'api key cache entries dropped');
      } else {
        // Retrying a message that will never parse helps nobody; the cache TTL still bounds staleness.
        logger.warn({ messageId: message.properties.messageId as unknown }, 'unreadable api_key.changed message dropped');
      }
      channel.ack(message);
    },
  });
}
