import { type Channel, declareLedgerCommands, declareLedgerEvents } from '@wallet/kit';

/** Payments sends posting commands to the ledger and listens to its events. */
export async function declarePaymentsTopology(channel: Channel): Promise<void> {
  await declareLedgerCommands(channel);
  await declareLedgerEvents(channel);
}
