import { type Environment, TOPOLOGY, tenantEventV1Schema } from '@wallet/contracts';
import { type Broker, consumeIdempotently, type Logger } from '@wallet/kit';
import { systemAccountNames } from '../accounts/account-rules';
import type { LedgerShards } from '../partitions/ledger-shards';
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

/**
 * `tenant.created` and `tenant.updated` place the tenant on a partition (in shard 0's directory)
 * and provision the system accounts of each allowed currency on that partition's shard.
 */
export async function startProvisioningConsumer(options: {
  broker: Broker;
  shards: LedgerShards;
  logger: Logger;
  partitions: number;
}): Promise<void> {
  const { broker, shards, logger, partitions } = options;
  await consumeIdempotently({
    broker,
    logger,
    db: shards.home.db,
    queue: TOPOLOGY.identityEvents.ledgerQueue,
    schema: tenantEventV1Schema,
    messageIdOf: (event) => event.messageId,
    handle: async (tx, event) => {
      // Placed before its first command, which then goes straight to its partition.
      const partition = await placeAndBind({ db: tx, broker, partitions }, event.tenantId);
      const shard = shards.shardOfPartition(partition);
      const refs = provisioningRefs(event.tenantId, event.config.allowedCurrencies);
      // Opening is idempotent: on another shard it commits on its own, and a redelivery opens nothing twice.
      if (shard === shards.home) await openAccounts(tx, refs);
      else await shard.db.transaction((shardTx) => openAccounts(shardTx, refs));
      logger.info({ tenantId: event.tenantId, currencies: event.config.allowedCurrencies }, 'system accounts provisioned');
    },
  });
}
