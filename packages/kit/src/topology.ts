import { TOPOLOGY } from '@wallet/contracts/messages/topology';
import type { Channel } from './amqp';

/**
 * The arguments of a queue of ledger commands: quorum, one active consumer at a time (so one
 * writer applies a partition's commands, in order, and the next consumer takes over when it
 * goes), and a delivery limit after which a command that keeps failing is dead-lettered
 * instead of blocking the queue.
 */
export function ledgerCommandQueueArguments(): Record<string, unknown> {
  const names = TOPOLOGY.ledgerCommands;
  return {
    'x-queue-type': 'quorum',
    'x-single-active-consumer': true,
    'x-delivery-limit': names.deliveryLimit,
    'x-dead-letter-exchange': names.deadLetterExchange,
  };
}

/**
 * Where ledger commands are published: the exchange routing by tenant, its alternate exchange
 * and queue for tenants the ledger has not placed yet, and the dead letters. Publishers and the
 * ledger declare it alike, so whoever starts first creates it; the partitions' queues and the
 * tenants' bindings are the ledger's.
 */
export async function declareLedgerCommands(channel: Channel): Promise<void> {
  const names = TOPOLOGY.ledgerCommands;
  await channel.assertExchange(names.unplacedExchange, 'fanout', { durable: true });
  await channel.assertExchange(names.exchange, 'direct', { durable: true, alternateExchange: names.unplacedExchange });
  await channel.assertExchange(names.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, '');
  await channel.assertQueue(names.unplacedQueue, { durable: true, arguments: ledgerCommandQueueArguments() });
  await channel.bindQueue(names.unplacedQueue, names.unplacedExchange, '');
}

export async function declareLedgerEvents(channel: Channel): Promise<void> {
  await channel.assertExchange(TOPOLOGY.ledgerEvents.exchange, 'topic', { durable: true });
}

export async function declareIdentityEvents(channel: Channel): Promise<void> {
  await channel.assertExchange(TOPOLOGY.identityEvents.exchange, 'topic', { durable: true });
}

/**
 * Audit records from every service to identity: durable, quorum, dead-lettered after the
 * delivery limit. Publishers and identity declare it alike, so none depends on who starts first.
 */
export async function declareAuditRecords(channel: Channel): Promise<void> {
  await declareExchangeWithQueue(channel, TOPOLOGY.auditRecords, { type: 'direct', bindingKey: TOPOLOGY.auditRecords.routingKey });
}

/** An exchange of messages from several services to one consumer's quorum queue, dead-lettered after its delivery limit. */
export interface ExchangeWithQueue {
  exchange: string;
  queue: string;
  deadLetterExchange: string;
  deadLetterQueue: string;
  deliveryLimit: number;
}

/** Declares the exchange, its queue bound by `bindingKey`, and the queue's dead letters. */
export async function declareExchangeWithQueue(
  channel: Channel,
  names: ExchangeWithQueue,
  options: { type: 'direct' | 'topic'; bindingKey: string },
): Promise<void> {
  await channel.assertExchange(names.exchange, options.type, { durable: true });
  await channel.assertExchange(names.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, '');
  await channel.assertQueue(names.queue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': names.deliveryLimit, 'x-dead-letter-exchange': names.deadLetterExchange },
  });
  await channel.bindQueue(names.queue, names.exchange, options.bindingKey);
}
