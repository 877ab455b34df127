import { type Channel, declareLedgerCommands, declareLedgerEvents } from '@wallet/kit';

/** Treasury sends posting commands to the ledger and listens to its events. */
export async function declareTreasuryTopology(channel: Channel): Promise<void> {
  await declareLedgerCommands(channel);
  await declareLedgerEvents(channel);
}
