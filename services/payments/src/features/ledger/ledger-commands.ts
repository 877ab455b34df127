import { ACCOUNTS, ledgerCommandRoutingKey, type LedgerResultV1, type LedgerWalletStatusV1, TOPOLOGY } from '@wallet/contracts';
import { currentContext, type Logger, type OutboxMessage } from '@wallet/kit';
import { LedgerCommandClient, LedgerReplyTimeout } from '@wallet/money-commands';

export { LedgerReplyTimeout };

/** The command could not even be handed to the broker. */
export class LedgerUnreachable extends Error {
  constructor(cause: unknown) {
    super(`ledger command could not be sent: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'LedgerUnreachable';
  }
}

/** What a wallet's ledger commands need of it. */
export interface WalletAccountRef {
  id: string;
  tenantId: string;
  environment: LedgerWalletStatusV1['environment'];
  ownerId: string;
  currencyCode: string;
}

/** Wallet accounts are named after their owner (the chart of accounts) and identified by the wallet id. */
export function walletAccountName(wallet: Pick<WalletAccountRef, 'ownerId'>): string {
  return ACCOUNTS.wallet.nameFor(wallet.ownerId);
}

/** The opening of a wallet's account: one fixed command id per wallet, so every copy of it is the same command. */
export function walletOpeningCommandId(walletId: string): string {
  return `${walletId}:open`;
}

/**
 * `ledger.wallet-status.v1` for a wallet. The payload is a function of the wallet, the status
 * and the command id only, so a re-sent command hashes the same and the ledger answers it with
 * its recorded result instead of applying it again.
 */
export function walletStatusCommand(wallet: WalletAccountRef, status: 'active' | 'frozen', commandId: string): LedgerWalletStatusV1 {
  const correlationId = currentContext()?.correlationId;
  return {
    type: 'ledger.wallet-status.v1',
    commandId,
    tenantId: wallet.tenantId,
    environment: wallet.environment,
    ...(correlationId ? { correlationId } : {}),
    walletId: wallet.id,
    accountName: walletAccountName(wallet),
    currencyCode: wallet.currencyCode,
    status,
  };
}

/** A command as an outbox message: published only if the transaction that wrote it commits. */
export function ledgerCommandMessage(command: LedgerWalletStatusV1): OutboxMessage {
  return {
    messageId: command.commandId,
    exchange: TOPOLOGY.ledgerCommands.exchange,
    routingKey: ledgerCommandRoutingKey(command.tenantId),
    type: command.type,
    payload: command,
    ...(command.correlationId ? { headers: { 'x-correlation-id': command.correlationId } } : {}),
  };
}

/**
 * Request/reply with the ledger over RabbitMQ, with a deadline. One connection, opened again
 * on the next request after it failed.
 */
export class LedgerCommands {
  private client: Promise<LedgerCommandClient> | null = null;

  constructor(private readonly options: { amqpUrl: string; replyTimeoutMs: number; logger: Logger }) {}

  async start(): Promise<void> {
    await this.connection();
  }

  /** The ledger's answer; LedgerReplyTimeout after the deadline (the command may still apply), LedgerUnreachable when it could not be sent. */
  async request(command: LedgerWalletStatusV1): Promise<LedgerResultV1> {
    let client: LedgerCommandClient;
    try {
      client = await this.connection();
    } catch (error) {
      throw new LedgerUnreachable(error);
    }
    try {
      return await client.request(command, { timeoutMs: this.options.replyTimeoutMs });
    } catch (error) {
      if (error instanceof LedgerReplyTimeout) throw error;
      this.options.logger.warn({ err: error, commandId: command.commandId }, 'ledger command not sent; reconnecting on the next one');
      await this.drop(client);
      throw new LedgerUnreachable(error);
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.close();
  }

  private connection(): Promise<LedgerCommandClient> {
    if (!this.client) {
      const connecting = LedgerCommandClient.connect(this.options.amqpUrl, 'payments-ledger-commands');
      this.client = connecting;
      connecting.catch(() => {
        if (this.client === connecting) this.client = null;
      });
    }
    return this.client;
  }

  private async drop(client: LedgerCommandClient): Promise<void> {
    const current = this.client;
    if (current && (await current.catch(() => null)) === client) this.client = null;
    await client.close();
  }
}
