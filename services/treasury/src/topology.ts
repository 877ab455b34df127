import { TOPOLOGY } from '@wallet/contracts';
import {
  type Channel,
  declareAuditRecords,
  declarePlatformEvents,
  declareIdentityEvents,
  declareLedgerCommands,
  declareLedgerEvents,
  declareTenantEventsQueue,
} from '@wallet/kit';

export const TREASURY_TOPOLOGY = {
  /** Treasury's own queue of identity's tenant events: its read model of tenant configuration. */
  identityEvents: {
    queue: 'treasury.identity-events',
    deadLetterExchange: 'treasury.identity-events.dlx',
    deadLetterQueue: 'treasury.identity-events.dlq',
    deliveryLimit: 5,
  },
  /** Treasury's shared queue of the ledger's posted/rejected events: finishes the records whose caller missed the reply. */
  ledgerEvents: {
    queue: 'treasury.ledger-events',
    deadLetterExchange: 'treasury.ledger-events.dlx',
    deadLetterQueue: 'treasury.ledger-events.dlq',
    /** Deliveries before an event that keeps failing is parked in the dead-letter queue. */
    deliveryLimit: 5,
  },
  /** The analytics read models' queue of `ledger.entries-posted.v1`: every committed entry, once applied. */
  analytics: {
    queue: 'treasury.analytics',
    deadLetterExchange: 'treasury.analytics.dlx',
    deadLetterQueue: 'treasury.analytics.dlq',
    deliveryLimit: 5,
  },
} as const;

/**
 * Treasury sends posting commands to the ledger and listens to its events, keeps a copy of each
 * tenant's configuration from identity's events; its maker-checker steps send audit records.
 */
export async function declareTreasuryTopology(channel: Channel): Promise<void> {
  await declareLedgerCommands(channel);
  await declareLedgerEvents(channel);
  await declareIdentityEvents(channel);
  await declareAuditRecords(channel);
  await declarePlatformEvents(channel);
  await declareTenantEventsQueue(channel, TREASURY_TOPOLOGY.identityEvents);

  const events = TREASURY_TOPOLOGY.ledgerEvents;
  await channel.assertExchange(events.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(events.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(events.deadLetterQueue, events.deadLetterExchange, '');
  await channel.assertQueue(events.queue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': events.deliveryLimit, 'x-dead-letter-exchange': events.deadLetterExchange },
  });
  // Bound to the ledger's results by the events consumer, for the reference types this service finishes.
  await declareAnalyticsQueue(channel);
}

async function declareAnalyticsQueue(channel: Channel): Promise<void> {
  const analytics = TREASURY_TOPOLOGY.analytics;
  await channel.assertExchange(analytics.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(analytics.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(analytics.deadLetterQueue, analytics.deadLetterExchange, '');
  await channel.assertQueue(analytics.queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': analytics.deliveryLimit,
      'x-dead-letter-exchange': analytics.deadLetterExchange,
    },
  });
  await channel.bindQueue(analytics.queue, TOPOLOGY.ledgerEvents.exchange, TOPOLOGY.ledgerEvents.entriesPostedRoutingKey);
}
