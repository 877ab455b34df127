import { randomUUID } from 'node:crypto';
import { type Environment, momoWebhookSignature } from '@wallet/contracts';
import { type FetchLike, WalletClient } from '@wallet/sdk';
import type { TransferWallet } from '../../services/payments/src/features/transfers/transfers-store';

/**
 * Tenants as a platform operator and a tenant's backend make them, through the public API only:
 * the tenant, its fee schedule, an HMAC key, a mobile money provider, wallets, and each wallet's
 * funds as a signed mobile money webhook (a deposit record payments keeps, so reconciliation
 * finds a record for every entry).
 */

export interface ScaleTenant {
  tenantId: string;
  client: WalletClient;
  wallets: TransferWallet[];
}

export interface TenantPlan {
  name: string;
  slug: string;
  wallets: number;
  /** Each wallet's deposit. */
  funds: string;
  fees: boolean;
  /** The environment of its key and wallets: test unless named. */
  environment?: Environment;
}

const CURRENCY = 'USD';

/** Runs `work` over `items`, at most `limit` at a time. */
export async function inParallel<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array<Result>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await work(items[index] as Item, index);
      }
    }),
  );
  return results;
}

/** Funds a wallet as a mobile money provider does: a deposit webhook signed with the provider's secret. */
export async function momoDeposit(baseUrl: string, webhookSecret: string, wallet: { id: string }, amount: string): Promise<void> {
  const transactionId = `mtn-${randomUUID()}`;
  const timestamp = new Date().toISOString();
  const phoneNumber = '+256700000001';
  const signature = momoWebhookSignature(webhookSecret, {
    transactionId,
    walletId: wallet.id,
    amountText: amount,
    currencyCode: CURRENCY,
    phoneNumber,
    timestamp,
  });
  const answer = await fetch(`${baseUrl}/v1/deposits/momo-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // The amount as a JSON number with its decimals, as a provider sends it.
    body: `{"transactionId":"${transactionId}","phoneNumber":"${phoneNumber}","amount":${amount},"currencyCode":"${CURRENCY}","walletId":"${wallet.id}","signature":"${signature}","timestamp":"${timestamp}"}`,
  });
  if (answer.status !== 201) throw new Error(`the momo webhook for ${wallet.id} answered ${answer.status}: ${await answer.text()}`);
}

/** A client signing as the tenant's backend does, with a new HMAC key of the platform operator's making. */
export async function tenantClient(
  platform: WalletClient,
  baseUrl: string,
  tenantId: string,
  environment: Environment,
  fetchFor: FetchLike | undefined,
): Promise<WalletClient> {
  const key = await platform.apiKeys.createForTenant(tenantId, {
    name: 'bench',
    authMode: 'hmac',
    scopes: ['ledger:write', 'ledger:read', 'providers:manage', 'tenant:manage'],
    environment,
  });
  return new WalletClient({
    baseUrl,
    auth: { type: 'hmac', keyId: key.id, signingSecret: key.signingSecret as string },
    validateResponses: false,
    maxRetries: 0,
    ...(fetchFor ? { fetch: fetchFor } : {}),
  });
}

export async function createTenant(
  platform: WalletClient,
  baseUrl: string,
  plan: TenantPlan,
  fetchFor: FetchLike | undefined,
): Promise<ScaleTenant> {
  const tenant = await platform.system.tenants.create({
    name: plan.name,
    slug: plan.slug,
    config: { defaultCurrency: CURRENCY, allowedCurrencies: [CURRENCY], maxTransactionAmount: '1000000' },
  });
  if (plan.fees) {
    const schedule = await platform.fees.tenantSchedules.create(tenant.id, { name: 'Bench', isDefault: true, platformCommissionBps: 2000 });
    await platform.fees.tenantSchedules.addRule(tenant.id, schedule.id, {
      transactionType: 'transfer',
      currencyCode: CURRENCY,
      flatFee: '0.05',
      percentageFee: '1',
      maxFee: '5.00',
    });
    await platform.fees.tenantSchedules.publish(tenant.id, schedule.id, { makeDefault: true });
  }
  const client = await tenantClient(platform, baseUrl, tenant.id, plan.environment ?? 'test', fetchFor);
  const provider = await client.momoProviders.create({ providerCode: 'mtn', name: 'MTN Mobile Money' });
  const wallets = await inParallel(
    Array.from({ length: plan.wallets }, (_, index) => index),
    8,
    async (index) => {
      const ownerId = `${plan.slug}-${index}`;
      const wallet = await client.wallets.create({ ownerType: 'user', ownerId, currencyCode: CURRENCY });
      const made: TransferWallet = { id: wallet.id, ownerId, currencyCode: CURRENCY, status: 'active' };
      await momoDeposit(baseUrl, provider.webhookSecret, made, plan.funds);
      return made;
    },
  );
  return { tenantId: tenant.id, client, wallets };
}
