import { ACCOUNTS, type LedgerPostV1 } from '@wallet/contracts';
import { LedgerCommandClient } from '@wallet/money-commands';
import { WalletClient } from '@wallet/sdk';
import type { Pool } from 'undici';
import { pooledFetch } from './system';
import type { Wallet } from './transfer-load';

/** A benchmark's tenant: its signing client (responses not validated, no retries) and its funded wallets. */
export interface BenchTenant {
  tenantId: string;
  client: WalletClient;
  wallets: Wallet[];
}

/**
 * A tenant with an HMAC key, `wallets` USD wallets made through the API and funded straight through the ledger (set-up,
 * not measured), and with `fees` a published default schedule, so every transfer also credits the fee and commission accounts.
 */
export async function createBenchTenant(options: {
  baseUrl: string;
  systemKey: string;
  amqpUrl: string;
  slug: string;
  wallets: number;
  fees: boolean;
  pool: Pool;
}): Promise<BenchTenant> {
  const platform = new WalletClient({ baseUrl: options.baseUrl, auth: { type: 'system', systemKey: options.systemKey } });
  const tenant = await platform.system.tenants.create({
    name: 'Bench',
    slug: options.slug,
    config: { defaultCurrency: 'USD', allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' },
  });
  if (options.fees) await publishFeeSchedule(platform, tenant.id);
  const key = await platform.apiKeys.createForTenant(tenant.id, {
    name: 'bench',
    authMode: 'hmac',
    scopes: ['ledger:write', 'ledger:read'],
    environment: 'test',
  });
  const client = new WalletClient({
    baseUrl: options.baseUrl,
    auth: { type: 'hmac', keyId: key.id, signingSecret: key.signingSecret as string },
    validateResponses: false,
    maxRetries: 0,
    fetch: pooledFetch(options.pool),
  });
  const wallets: Wallet[] = [];
  for (let index = 0; index < options.wallets; index += 1) {
    const ownerId = `bench-${index}`;
    const wallet = await client.wallets.create({ ownerType: 'user', ownerId, currencyCode: 'USD' });
    wallets.push({ id: wallet.id, ownerId });
  }
  await fund(options.amqpUrl, tenant.id, wallets);
  return { tenantId: tenant.id, client, wallets };
}

async function publishFeeSchedule(platform: WalletClient, tenantId: string): Promise<void> {
  const schedule = await platform.fees.tenantSchedules.create(tenantId, { name: 'Bench', isDefault: true, platformCommissionBps: 2000 });
  await platform.fees.tenantSchedules.addRule(tenantId, schedule.id, {
    transactionType: 'transfer',
    currencyCode: 'USD',
    flatFee: '0.05',
    percentageFee: '1',
    maxFee: '5.00',
  });
  await platform.fees.tenantSchedules.publish(tenantId, schedule.id, { makeDefault: true });
}

async function fund(amqpUrl: string, tenantId: string, wallets: readonly Wallet[]): Promise<void> {
  const ledger = await LedgerCommandClient.connect(amqpUrl, 'bench-funding');
  try {
    await Promise.all(
      wallets.map((wallet) => {
        const command: LedgerPostV1 = {
          type: 'ledger.post.v1',
          commandId: `fund-${wallet.id}`,
          tenantId,
          environment: 'test',
          kind: 'momo_deposit',
          reference: { type: 'deposit', id: `dep_bench_${wallet.id}` },
          lines: [
            { accountName: ACCOUNTS.momoFloat.nameFor('bench'), direction: 'DR', amount: '10000000.00', currencyCode: 'USD' },
            {
              accountName: ACCOUNTS.wallet.nameFor(wallet.ownerId),
              walletId: wallet.id,
              direction: 'CR',
              amount: '10000000.00',
              currencyCode: 'USD',
            },
          ],
        };
        return ledger.request(command, { timeoutMs: 60_000 });
      }),
    );
  } finally {
    await ledger.close();
  }
}
