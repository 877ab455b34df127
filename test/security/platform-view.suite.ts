import { randomUUID } from 'node:crypto';
import { PLATFORM_ROUTES } from '@wallet/contracts';
import { LedgerCommandClient } from '@wallet/money-commands';
import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from './in-process-system';

/**
 * The platform operator's view through the real gateway, identity, ledger and payments: an
 * organization's allowed currencies changed by PATCH reach payments (a wallet in the new
 * currency can be opened) and the ledger (its system accounts are provisioned), and the
 * cross-tenant reads answer only to the system key.
 */
let system: SecuritySystem;
let admin: WalletClient;
let mainListener: WalletClient;
let ledger: LedgerCommandClient;

beforeAll(async () => {
  system = await startSecuritySystem('security_platform', {
    GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0',
  });
  admin = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  mainListener = new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  ledger = await LedgerCommandClient.connect(system.env.AMQP_URL as string, 'platform-view-tests');
});

afterAll(async () => {
  await ledger?.close();
  await system?.close();
});

async function newOrganization(allowedCurrencies: string[]): Promise<string> {
  const slug = `pv-${randomUUID().slice(0, 8)}`;
  return (
    await admin.system.organizations.create({
      name: slug,
      slug,
      config: { defaultCurrency: 'KES', allowedCurrencies, maxTransactionAmount: '100000' },
    })
  ).id;
}

async function tenantClient(tenantId: string, environment: 'test' | 'live' = 'live'): Promise<WalletClient> {
  const key = await admin.apiKeys.createForTenant(tenantId, { name: `${environment} admin`, scopes: ['tenant:manage'], environment });
  return new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key.key as string }, maxRetries: 0 });
}

async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'OK';
  } catch (error) {
    if (isWalletApiError(error)) return `${error.status} ${error.code}`;
    throw error;
  }
}

async function deposit(
  wallet: { id: string; tenantId: string; environment: 'test' | 'live'; ownerId: string; currencyCode: string },
  amount: string,
): Promise<string> {
  const result = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `pv-${randomUUID()}`,
    tenantId: wallet.tenantId,
    environment: wallet.environment,
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount, currencyCode: wallet.currencyCode },
      { accountName: `wallet:${wallet.ownerId}`, walletId: wallet.id, direction: 'CR', amount, currencyCode: wallet.currencyCode },
    ],
  });
  if (result.status !== 'posted' || !result.journalEntryId) throw new Error(`deposit not posted: ${JSON.stringify(result)}`);
  return result.journalEntryId;
}

describe('PATCH /v1/system/organizations/{id} across the services', () => {
  it('opens a newly allowed currency to wallets in payments and provisions its ledger accounts in both environments', async () => {
    const tenantId = await newOrganization(['KES']);
    const live = await tenantClient(tenantId, 'live');
    const test = await tenantClient(tenantId, 'test');
    expect(await outcome(() => live.wallets.create({ ownerType: 'user', ownerId: 'eur-owner', currencyCode: 'EUR' }))).toBe(
      '422 CURRENCY_NOT_ALLOWED',
    );
    expect((await live.ledger.accounts({ currencyCode: 'EUR' })).data).toEqual([]);

    const updated = await admin.system.organizations.update(tenantId, { config: { allowedCurrencies: ['KES', 'EUR'] } });
    expect(updated.config.allowedCurrencies).toEqual(['KES', 'EUR']);

    // Payments learns of the change from tenant.updated, moments after the answer.
    const wallet = await waitFor(
      async () => {
        try {
          return await live.wallets.create({ ownerType: 'user', ownerId: 'eur-owner', currencyCode: 'EUR' });
        } catch (error) {
          if (isWalletApiError(error) && error.code === 'CURRENCY_NOT_ALLOWED') return undefined;
          throw error;
        }
      },
      { what: 'an EUR wallet to be creatable' },
    );
    expect(wallet).toMatchObject({ tenantId, environment: 'live', currencyCode: 'EUR', balance: '0.00' });

    const provisioned = [
      'asset:bank-clearing:EUR',
      'asset:cash-clearing:EUR',
      'asset:momo-clearing:EUR',
      'asset:pool:EUR',
      'payout-clearing',
      'platform-commission',
      'revenue:fees',
      'suspense',
    ];
    for (const client of [live, test]) {
      const names = await waitFor(
        async () => {
          const accounts = (await client.ledger.accounts({ currencyCode: 'EUR', limit: 200 })).data.filter(
            (account) => account.walletId === null,
          );
          return accounts.length >= provisioned.length ? accounts.map((account) => account.name).sort() : undefined;
        },
        { what: 'EUR system accounts' },
      );
      expect(names).toEqual(provisioned);
    }

    const audit = await live.auditEvents.list({ action: 'tenant.updated' });
    expect(audit.data).toEqual([expect.objectContaining({ actorType: 'system', targetType: 'tenant', targetId: tenantId })]);
  });

  it('changes nothing on a refused change', async () => {
    const tenantId = await newOrganization(['KES']);
    const before = await admin.system.organizations.get(tenantId);
    expect(await outcome(() => admin.system.organizations.update(tenantId, { config: { allowedCurrencies: ['EUR'] } }))).toBe(
      '400 VALIDATION_ERROR',
    );
    expect(await admin.system.organizations.get(tenantId)).toEqual(before);
    expect(await outcome(() => admin.system.organizations.update('tn_00000000000000000000000000', { name: 'Nobody' }))).toBe(
      '404 TENANT_NOT_FOUND',
    );
  });
});

describe('the cross-tenant reads', () => {
  let walletOfA: Awaited<ReturnType<WalletClient['wallets']['create']>>;
  let entryOfA: string;
  let entryOfB: string;
  let tenantA: string;
  let tenantB: string;
  let tenantClientA: WalletClient;

  beforeAll(async () => {
    tenantA = await newOrganization(['KES']);
    tenantB = await newOrganization(['KES']);
    tenantClientA = await tenantClient(tenantA);
    const clientB = await tenantClient(tenantB, 'test');
    walletOfA = await tenantClientA.wallets.create({ ownerType: 'company', ownerId: 'acme-a', currencyCode: 'KES' });
    const walletOfB = await clientB.wallets.create({ ownerType: 'user', ownerId: 'bob-b', currencyCode: 'KES' });
    entryOfA = await deposit(walletOfA, '250.75');
    entryOfB = await deposit(walletOfB, '10.00');
  });

  it("shows another tenant's wallet with its balance, on both listeners", async () => {
    for (const client of [admin, mainListener]) {
      const shown = await client.system.wallets.get(walletOfA.id);
      expect(shown).toEqual({ ...walletOfA, balance: '250.75' });
    }
    expect(await outcome(() => admin.system.wallets.get('wl_00000000000000000000000000'))).toBe('404 WALLET_NOT_FOUND');
  });

  it('lists entries of both tenants, narrows them by tenant and environment, and shows one balanced', async () => {
    const everything = await admin.system.transactions.list({ limit: 200 });
    expect(everything.data.map((entry) => entry.id)).toEqual(expect.arrayContaining([entryOfA, entryOfB]));
    expect((await admin.system.transactions.list({ tenantId: tenantB, environment: 'test' })).data.map((entry) => entry.id)).toEqual([
      entryOfB,
    ]);
    expect((await mainListener.system.transactions.list({ tenantId: tenantA, environment: 'test' })).data).toEqual([]);
    const first = await admin.system.transactions.list({ limit: 1 });
    const second = await admin.system.transactions.list({ limit: 1, cursor: first.nextCursor ?? undefined });
    expect(second.data[0]?.id).not.toBe(first.data[0]?.id);

    const entry = await mainListener.system.transactions.get(entryOfA);
    expect(entry).toMatchObject({ id: entryOfA, tenantId: tenantA, environment: 'live', kind: 'momo_deposit' });
    expect(entry.lines.map((line) => `${line.direction} ${line.amount}`).sort()).toEqual(['CR 250.75', 'DR 250.75']);
    expect(await outcome(() => admin.system.transactions.get('je_00000000000000000000000000'))).toBe('404 JOURNAL_ENTRY_NOT_FOUND');
  });

  it('answers none of the platform routes to a tenant key, not even about its own resources', async () => {
    const params: Record<string, string> = {
      id: tenantA,
      walletId: walletOfA.id,
      journalEntryId: entryOfA,
      accountId: 'acc_00000000000000000000000000',
    };
    const seen: string[] = [];
    for (const route of PLATFORM_ROUTES) {
      const path = route.path.replace(/\{(\w+)\}/g, (_whole, name: string) => params[name] ?? 'missing');
      const result = await outcome(() =>
        tenantClientA.request({
          method: route.method.toUpperCase() as 'GET',
          path,
          ...(route.method === 'get' ? {} : { body: { name: 'taken over' } }),
        }),
      );
      seen.push(`${route.method} ${route.path}: ${result}`);
    }
    expect(seen).toEqual(PLATFORM_ROUTES.map((route) => `${route.method} ${route.path}: 401 MISSING_CREDENTIALS`));
    expect((await admin.system.organizations.get(tenantA)).name).not.toBe('taken over');
  });
});
