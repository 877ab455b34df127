import {
  type Channel,
  declareAuditRecords,
  declarePlatformEvents,
  declareIdentityEvents,
  declareLedgerCommands,
  declareLedgerEvents,
  declareTenantEventsQueue,
} from '@wallet/kit';

/** Payments' own queue of identity events: its read model of tenant configuration. */
export const PAYMENTS_TOPOLOGY = {
  identityEvents: {
    queue: 'payments.identity-events',
    deadLetterExchange: 'payments.identity-events.dlx',
    deadLetterQueue: 'payments.identity-events.dlq',
    /** Deliveries before an event that keeps failing is parked in the dead-letter queue. */
    deliveryLimit: 5,
  },
  /** Payments' shared queue of the ledger's posted/rejected events: finishes the records whose caller missed the reply. */
  ledgerEvents: {
    queue: 'payments.ledger-events',
    deadLetterExchange: 'payments.ledger-events.dlx',
    deadLetterQueue: 'payments.ledger-events.dlq',
    deliveryLimit: 5,
  },
} as const;

/**
 * Payments sends commands to the ledger and listens to its events, keeps a copy of each
 * tenant's configuration from identity's events, and publishes audit records (declared here
 * too, so a record is queued for identity even when identity has not started yet).
 */
export async function declarePaymentsTopology(channel: Channel): Promise<void> {
  await declareLedgerCommands(channel);
  await declareLedgerEvents(channel);
  await declareIdentityEvents(channel);
  await declareAuditRecords(channel);
  await declarePlatformEvents(channel);

  await declareTenantEventsQueue(channel, PAYMENTS_TOPOLOGY.identityEvents);

  const events = PAYMENTS_TOPOLOGY.ledgerEvents;
  await channel.assertExchange(events.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(events.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(events.deadLetterQueue, events.deadLetterExchange, '');
  await channel.assertQueue(events.queue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': events.deliveryLimit, 'x-dead-letter-exchange': events.deadLetterExchange },
  });
  // Bound to the ledger's results by the events consumer, for the reference types this service finishes.
}
