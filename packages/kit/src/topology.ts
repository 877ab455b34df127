import { TOPOLOGY } from '@wallet/contracts/messages/topology';
import type { Channel } from './amqp';

/**
 * The ledger's command queue: a durable quorum queue with a delivery limit, after which a
 * command that keeps failing is dead-lettered instead of blocking the queue. Publishers and
 * the ledger both declare it, with identical arguments, so whoever starts first creates it.
 */
export async function declareLedgerCommands(channel: Channel): Promise<void> {
  const names = TOPOLOGY.ledgerCommands;
  await channel.assertExchange(names.exchange, 'direct', { durable: true });
  await channel.assertExchange(names.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, '');
  await channel.assertQueue(names.queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': names.deliveryLimit,
      'x-dead-letter-exchange': names.deadLetterExchange,
    },
  });
  await channel.bindQueue(names.queue, names.exchange, names.routingKey);
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
  const names = TOPOLOGY.auditRecords;
  await channel.assertExchange(names.exchange, 'direct', { durable: true });
  await channel.assertExchange(names.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, '');
  await channel.assertQueue(names.queue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': names.deliveryLimit, 'x-dead-letter-exchange': names.deadLetterExchange },
  });
  await channel.bindQueue(names.queue, names.exchange, names.routingKey);
}
