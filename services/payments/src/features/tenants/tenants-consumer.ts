import { amountStringSchema, tenantEventV1Schema } from '@wallet/contracts';
import { type Broker, consumeIdempotently, type Db, type Logger } from '@wallet/kit';
import { PAYMENTS_TOPOLOGY } from '../../topology';
import { upsertTenantConfig } from './tenants-store';

/**
 * `tenant.created.v1` and `tenant.updated.v1` keep payments' copy of each tenant's
 * configuration (allowed currencies, default currency, transaction ceiling), once per message.
 */
export async function startTenantsConsumer(deps: { broker: Broker; db: Db; logger: Logger }): Promise<void> {
  await consumeIdempotently({
    ...deps,
    queue: PAYMENTS_TOPOLOGY.identityEvents.queue,
    schema: tenantEventV1Schema,
    messageIdOf: (event) => event.messageId,
    handle: async (tx, event) => {
      // A ceiling that is not a decimal is a broken event: failing here parks it in the dead-letter queue.
      const maxTransactionAmount = amountStringSchema.parse(event.config.maxTransactionAmount);
      await upsertTenantConfig(
        tx,
        { tenantId: event.tenantId, defaultCurrency: event.config.defaultCurrency, allowedCurrencies: event.config.allowedCurrencies, maxTransactionAmount },
        event.occurredAt,
      );
      deps.logger.info({ tenantId: event.tenantId, type: event.type }, 'tenant configuration recorded');
    },
  });
}
