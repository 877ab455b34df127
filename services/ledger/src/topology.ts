import { TOPOLOGY } from '@wallet/contracts';
import { type Channel, declareIdentityEvents, declareLedgerCommands, declareLedgerEvents } from '@wallet/kit';

export async function declareLedgerTopology(channel: Channel): Promise<void> {
  await declareLedgerCommands(channel);
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
