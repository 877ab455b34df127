import { tenantEventV1Schema } from '@wallet/contracts/messages/tenant-events.v1';
import { TOPOLOGY } from '@wallet/contracts/messages/topology';
import { amountStringSchema } from '@wallet/contracts/money';
import type { Broker, Channel } from '../amqp';
import type { Db } from '../db';
import { consumeIdempotently } from '../inbox';
import type { Logger } from '../logger';
import { upsertTenantConfig } from './tenant-config-store';
import { TenantDirectory, type TenantDirectoryOptions } from './tenant-directory';

/** A service's own queue of identity's tenant events, dead-lettered after its delivery limit. */
export interface TenantEventsQueue {
  queue: string;
  deadLetterExchange: string;
  deadLetterQueue: string;
  /** Deliveries before an event that keeps failing is parked in the dead-letter queue. */
  deliveryLimit: number;
}

/** Declares the queue and binds it to tenant.created and tenant.updated (identity's exchange must be declared first). */
export async function declareTenantEventsQueue(channel: Channel, names: TenantEventsQueue): Promise<void> {
  await channel.assertExchange(names.deadLetterExchange, 'fanout', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, '');
  await channel.assertQueue(names.queue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': names.deliveryLimit, 'x-dead-letter-exchange': names.deadLetterExchange },
  });
  const identity = TOPOLOGY.identityEvents;
  await channel.bindQueue(names.queue, identity.exchange, identity.tenantCreatedRoutingKey);
  await channel.bindQueue(names.queue, identity.exchange, identity.tenantUpdatedRoutingKey);
}

/**
 * A service's read model of tenant configuration (allowed currencies, default currency,
 * transaction ceiling): `tenant.created.v1` and `tenant.updated.v1` from its own queue, once per
 * message, into its `tenants` table; the directory answers lookups.
 */
export async function startTenantConfigReadModel(
  parts: { broker: Broker; db: Db; logger: Logger },
  options: { queue: string } & Omit<TenantDirectoryOptions, 'db'>,
): Promise<TenantDirectory> {
  const { broker, db, logger } = parts;
  await consumeIdempotently({
    broker,
    db,
    logger,
    queue: options.queue,
    schema: tenantEventV1Schema,
    messageIdOf: (event) => event.messageId,
    handle: async (tx, event) => {
      // A ceiling that is not a decimal is a broken event: failing here parks it in the dead-letter queue.
      const maxTransactionAmount = amountStringSchema.parse(event.config.maxTransactionAmount);
      await upsertTenantConfig(
        tx,
        {
          tenantId: event.tenantId,
          defaultCurrency: event.config.defaultCurrency,
          allowedCurrencies: event.config.allowedCurrencies,
          maxTransactionAmount,
        },
        event.occurredAt,
      );
      logger.info({ tenantId: event.tenantId, type: event.type }, 'tenant configuration recorded');
    },
  });
  return new TenantDirectory({ db, waitMs: options.waitMs, ...(options.fetchMissing ? { fetchMissing: options.fetchMissing } : {}) });
}
