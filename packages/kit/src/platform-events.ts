import { newId } from '@wallet/contracts/ids';
import type { Environment } from '@wallet/contracts/common';
import { type EventType, type PlatformEvent, type PlatformEventV1 } from '@wallet/contracts/messages/platform-event.v1';
import { TOPOLOGY } from '@wallet/contracts/messages/topology';
import type { Channel } from './amqp';
import { currentContext } from './context';
import type { OutboxMessage } from './outbox';
import { declareExchangeWithQueue } from './topology';

/**
 * An event as an outbox message, enqueued in the transaction of the change it announces.
 * The message id is new each time (the outbox's ids are unique, and the same event may be
 * announced again); the event's own id is what identity records it by, once.
 */
export function platformEventMessage(announced: { tenantId: string; objectId: string; event: PlatformEvent }): OutboxMessage {
  const message: PlatformEventV1 = { type: 'platform.event.v1', ...announced };
  const correlationId = currentContext()?.correlationId;
  return {
    messageId: newId('message'),
    exchange: TOPOLOGY.platformEvents.exchange,
    routingKey: announced.event.type,
    type: message.type,
    payload: message,
    ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
  };
}

/** An event of a change recorded now, by the transaction that enqueues it (a wallet frozen, a slip refused). */
export function newPlatformEventMessage(
  scope: { tenantId: string; environment: Environment },
  type: EventType,
  object: { id: string },
): OutboxMessage {
  const event: PlatformEvent = {
    id: newId('event'),
    type,
    createdAt: new Date().toISOString(),
    environment: scope.environment,
    data: { object: object as unknown as Record<string, unknown> },
  };
  return platformEventMessage({ tenantId: scope.tenantId, objectId: object.id, event });
}

/**
 * Events from every service to identity: durable, quorum, dead-lettered after the delivery
 * limit. Announcers and identity declare it alike, so none depends on who starts first.
 */
export async function declarePlatformEvents(channel: Channel): Promise<void> {
  await declareExchangeWithQueue(channel, TOPOLOGY.platformEvents, { type: 'topic', bindingKey: '#' });
}
