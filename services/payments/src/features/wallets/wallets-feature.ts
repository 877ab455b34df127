import { type Features, idempotency, type ServiceConfig, type ServiceParts } from '@wallet/kit';
import { LedgerReads } from '@wallet/money-commands';
import { z } from 'zod';
import type { peersConfigShape } from '../../peers';
import { LedgerCommands } from '../ledger/ledger-commands';
import type { TenantDirectory } from '@wallet/kit';
import { WalletStatusRetrier } from './wallet-status-retrier';
import { WalletStatusService } from './wallet-status-service';
import { walletsRouter } from './wallets-router';
import { WalletsService } from './wallets-service';

const milliseconds = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

export const walletsConfigShape = {
  /** How long a freeze or unfreeze waits for the ledger's answer before answering 503. */
  PAYMENTS_LEDGER_REPLY_TIMEOUT_MS: milliseconds(100, 60_000, 5_000),
  /** How often status changes whose answer missed the deadline are re-sent. */
  PAYMENTS_WALLET_STATUS_RETRY_INTERVAL_MS: milliseconds(50, 600_000, 5_000),
};

/** Wallets: their routes, the ledger client they read and command through, and the status retrier. */
export async function startWallets(
  parts: ServiceParts<
    ServiceConfig<typeof walletsConfigShape & Pick<typeof peersConfigShape, 'LEDGER_URL' | 'PAYMENTS_LEDGER_READ_TIMEOUT_MS'>>
  >,
  deps: { tenants: TenantDirectory },
): Promise<Features> {
  const { config, db, relay, logger } = parts;
  const ledger = new LedgerReads({
    baseUrl: config.LEDGER_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.PAYMENTS_LEDGER_READ_TIMEOUT_MS,
    logger,
  });
  const commands = new LedgerCommands({ amqpUrl: config.AMQP_URL, replyTimeoutMs: config.PAYMENTS_LEDGER_REPLY_TIMEOUT_MS, logger });
  await commands.start();
  const wallets = new WalletsService({ db, relay, tenants: deps.tenants, ledger });
  const statuses = new WalletStatusService({ db, relay, commands, logger });
  const retrier = new WalletStatusRetrier({
    statuses,
    intervalMs: config.PAYMENTS_WALLET_STATUS_RETRY_INTERVAL_MS,
    graceMs: config.PAYMENTS_LEDGER_REPLY_TIMEOUT_MS,
    logger,
  });
  retrier.start();
  return {
    routes: (app) => app.use(walletsRouter(wallets, statuses, idempotency({ db, required: false, logger }))),
    stop: async () => {
      await retrier.stop();
      await commands.close();
    },
  };
}
