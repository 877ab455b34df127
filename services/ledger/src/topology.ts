import { ledgerPartitionQueues, TOPOLOGY } from '@wallet/contracts';
import { type Channel, declareIdentityEvents, declareLedgerCommands, declareLedgerEvents, ledgerCommandQueueArguments } from '@wallet/kit';

/** The partitions' command queues, `partitions` of them (LEDGER_PARTITIONS), and what the ledger consumes besides. */
export async function declareLedgerTopology(channel: Channel, partitions: number): Promise<void> {
  await declareLedgerCommands(channel);
  for (const queue of ledgerPartitionQueues(partitions)) {
    await channel.assertQueue(queue, { durable: true, arguments: ledgerCommandQueueArguments() });
  }
  await declareLedgerEvents(channel);
  await declareIdentityEvents(channel);
  const identity = TOPOLOGY.identityEvents;
  await channel.assertQueue(identity.ledgerQueue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': TOPOLOGY.ledgerCommands.deliveryLimit,
      'x-dead-letter-exchange': TOPOLOGY.ledgerCommands.deadLetterExchange,
    },
  });
  await channel.bindQueue(identity.ledgerQueue, identity.exchange, identity.tenantCreatedRoutingKey);
  await channel.bindQueue(identity.ledgerQueue, identity.exchange, identity.tenantUpdatedRoutingKey);
}
