import { newId } from '@wallet/contracts/ids';
import type { Environment } from '@wallet/contracts/common';
import { stringifyLossless } from '@wallet/contracts/json';
import {
  type AnnouncedEvent,
  type EventType,
  type PlatformEvent,
  type PlatformEventsV1,
} from '@wallet/contracts/messages/platform-event.v1';
import { TOPOLOGY } from '@wallet/contracts/messages/topology';
import type { Broker, Channel } from './amqp';
import { currentContext } from './context';
import { type OutboxMessage, outgoingOf } from './outbox';
import { declareExchangeWithQueue } from './topology';

/** An event of an object of a tenant, written once as the JSON text every delivery of it sends. */
export function announcedEvent(announced: { tenantId: string; objectId: string; event: PlatformEvent }): AnnouncedEvent {
  const { event } = announced;
  return {
    tenantId: announced.tenantId,
    objectId: announced.objectId,
    id: event.id,
    type: event.type,
    environment: event.environment,
    createdAt: event.createdAt,
    json: stringifyLossless(event),
  };
}

/** The routing key of a batch of events: the exchange is a topic, and identity's queue takes everything. */
const EVENTS_ROUTING_KEY = 'events';

/**
 * Events as one message, enqueued in the transaction of the change they announce (or published
 * at once, publishPlatformEvents). The message id is new each time (the outbox's ids are unique,
 * and the same event may be announced again); the events' own ids are what identity records them
 * by, once.
 */
export function platformEventsMessage(events: readonly AnnouncedEvent[]): OutboxMessage {
  const payload: PlatformEventsV1 = { type: 'platform.events.v1', events: [...events] };
  const correlationId = currentContext()?.correlationId;
  return {
    messageId: newId('message'),
    exchange: TOPOLOGY.platformEvents.exchange,
    routingKey: EVENTS_ROUTING_KEY,
    type: payload.type,
    payload,
    ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
  };
}

/**
 * Publishes events now, as one message, and returns once the broker has confirmed it. For a
 * consumer that announces what it recorded after its commit and before its acknowledgement: a
 * crash between the two redelivers what it consumed, which announces the same events again.
 */
export async function publishPlatformEvents(broker: Broker, events: readonly AnnouncedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const message = outgoingOf(platformEventsMessage(events));
  await broker.publish(message.exchange, message.routingKey, Buffer.from(message.text), message.options);
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
  return platformEventsMessage([announcedEvent({ tenantId: scope.tenantId, objectId: object.id, event })]);
}

/**
 * Events from every service to identity: durable, quorum, dead-lettered after the delivery
 * limit. Announcers and identity declare it alike, so none depends on who starts first.
 */
export async function declarePlatformEvents(channel: Channel): Promise<void> {
  await declareExchangeWithQueue(channel, TOPOLOGY.platformEvents, { type: 'topic', bindingKey: '#' });
}
