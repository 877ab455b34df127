import { type Environment, TOPOLOGY, tenantEventV1Schema } from '@wallet/contracts';
import { type Broker, consumeIdempotently, type Db, type Logger } from '@wallet/kit';
import { systemAccountNames } from '../accounts/account-rules';
import { placeAndBind } from '../partitions/partition-directory';
import { type AccountRef, openAccounts } from '../posting/account-opening';

const ENVIRONMENTS: Environment[] = ['test', 'live'];

/** The system accounts of a tenant: every allowed currency, both environments. */
export function provisioningRefs(tenantId: string, currencies: string[]): AccountRef[] {
  return ENVIRONMENTS.flatMap((environment) =>
    currencies.flatMap((currencyCode) =>
      systemAccountNames(currencyCode).map((name) => ({ tenantId, environment, currencyCode, name, walletId: null })),
    ),
  );
}

/** `tenant.created` and `tenant.updated` provision the system accounts of each allowed currency and place the tenant on a partition. */
export async function startProvisioningConsumer(options: { broker: Broker; db: Db; logger: Logger; partitions: number }): Promise<void> {
  await consumeIdempotently({
    ...options,
    queue: TOPOLOGY.identityEvents.ledgerQueue,
    schema: tenantEventV1Schema,
    messageIdOf: (event) => event.messageId,
    handle: async (tx, event) => {
      await openAccounts(tx, provisioningRefs(event.tenantId, event.config.allowedCurrencies));
      // Placed before its first command, which then goes straight to its partition.
      await placeAndBind({ db: tx, broker: options.broker, partitions: options.partitions }, event.tenantId);
      options.logger.info({ tenantId: event.tenantId, currencies: event.config.allowedCurrencies }, 'system accounts provisioned');
    },
  });
}
