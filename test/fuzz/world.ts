import { randomUUID } from 'node:crypto';
import { momoWebhookSignature, ROUTES } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { WalletClient } from '@wallet/sdk';
import { type SecuritySystem, SYSTEM_KEY } from '../security/in-process-system';
import { emptyPools, type FuzzWorld, type IdPools, kindOfPathParam, type WalletRef } from './generators';

/**
 * The world the fuzz aims at, made through the API itself: tenant A (live, the caller), its test
 * environment, tenant B and a few more tenants, with a resource of every kind in each, and
 * wallets funded by signed webhooks (one above the tenant's maximum).
 */

const PASSWORD = 'a long enough password';
const WEBHOOK = '/v1/deposits/momo-webhook';
const CONFIG = { defaultCurrency: 'KES', allowedCurrencies: ['KES', 'UGX', 'KWD'], maxTransactionAmount: '1000000' };

interface Tenant {
  id: string;
  slug: string;
  admin: WalletClient;
  adminKey: { id: string; key: string };
}

type Role = 'operator' | 'approver' | 'org-admin' | 'observer';

function email(who: string): string {
  return `${who}-${randomUUID().slice(0, 8)}@example.com`;
}

/** A tenant made moments ago reaches payments and the ledger through events: its first calls may wait for it. */
async function whenReady<Value>(call: () => Promise<Value>, what: string): Promise<Value> {
  let last: unknown;
  try {
    return await waitFor(
      async () => {
        try {
          return await call();
        } catch (error) {
          last = error;
          return undefined;
        }
      },
      { timeoutMs: 30_000, intervalMs: 200, what },
    );
  } catch {
    throw new Error(`${what} failed: ${(last as Error)?.message ?? last}`);
  }
}

class WorldBuilder {
  readonly own = emptyPools();
  readonly otherEnvironment = emptyPools();
  readonly otherTenant = emptyPools();
  /** What destructive routes are never pointed at: the harness's keys, members, provider, tenants and funded wallets. */
  readonly protectedIds = new Set<string>();
  readonly wallets: WalletRef[] = [];
  readonly platform: WalletClient;
  private readonly anonymous: WalletClient;
  private deliveries = 0;

  constructor(
    private readonly system: SecuritySystem,
    private readonly inviteTokens: string[],
  ) {
    this.platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY }, maxRetries: 0 });
    this.anonymous = new WalletClient({ baseUrl: system.publicUrl, maxRetries: 0 });
  }

  keyClient(key: string): WalletClient {
    return new WalletClient({ baseUrl: this.system.publicUrl, auth: { type: 'secret', apiKey: key }, maxRetries: 0 });
  }

  async tenant(slug: string): Promise<Tenant> {
    const tenant = await this.platform.system.tenants.create({ name: `Fuzz ${slug}`, slug, config: CONFIG });
    const key = await this.platform.apiKeys.createForTenant(tenant.id, {
      name: 'fuzz admin',
      scopes: ['tenant:manage'],
      environment: 'live',
    });
    this.protectedIds.add(tenant.id).add(key.id);
    return { id: tenant.id, slug, admin: this.keyClient(key.key as string), adminKey: { id: key.id, key: key.key as string } };
  }

  /** Tenants nobody relies on (PATCH aims at them), and organizations whose invited admins leave tokens in the inbox. */
  async spareTenants(): Promise<void> {
    this.otherTenant.tenant.push((await this.platform.system.tenants.create({ name: 'Fuzz spare', slug: 'fuzz-c', config: CONFIG })).id);
    for (const slug of ['fuzz-d', 'fuzz-e'])
      await this.platform.system.organizations.create({
        name: `Fuzz ${slug}`,
        slug,
        config: CONFIG,
        admin: { name: 'Invited', email: email(slug) },
      });
  }

  /** A key in each world to read, and some the fuzz may revoke or rotate; one revoked already. */
  async keys(a: Tenant, aTest: WalletClient, b: Tenant): Promise<{ revokedKey: string }> {
    const readKey = async (client: WalletClient, environment: 'live' | 'test') =>
      (await client.apiKeys.create({ name: 'spare', scopes: ['ledger:read'], environment })).id;
    this.own.apiKey.push(a.adminKey.id, await readKey(a.admin, 'live'), await readKey(a.admin, 'live'));
    this.otherEnvironment.apiKey.push(await readKey(aTest, 'test'));
    this.otherTenant.apiKey.push(b.adminKey.id, await readKey(b.admin, 'live'));
    const revoked = await a.admin.apiKeys.create({ name: 'revoked', scopes: ['ledger:read'], environment: 'live' });
    await a.admin.apiKeys.revoke(revoked.id);
    this.protectedIds.add(revoked.id);
    return { revokedKey: revoked.key as string };
  }

  async member(tenant: Tenant, name: string, orgRole: Role, pool: IdPools, keep: boolean): Promise<{ id: string; email: string }> {
    const created = await tenant.admin.team.create({ name, email: email(name), password: PASSWORD, orgRole });
    pool.member.push(created.id);
    if (keep) this.protectedIds.add(created.id);
    return created;
  }

  async provider(tenant: Tenant, providerCode: string, pool: IdPools, keep: boolean): Promise<string> {
    const created = await tenant.admin.momoProviders.create({ providerCode, name: providerCode.toUpperCase() });
    pool.momoProvider.push(created.id);
    if (keep) this.protectedIds.add(created.id);
    return created.webhookSecret;
  }

  async wallet(client: WalletClient, ownerId: string, currencyCode: string, pool: IdPools, keep = true): Promise<string> {
    const wallet = await whenReady(() => client.wallets.create({ ownerType: 'user', ownerId, currencyCode }), `wallet ${ownerId}`);
    pool.wallet.push(wallet.id);
    if (pool === this.own) this.wallets.push({ id: wallet.id, currencyCode, accountName: `wallet:${ownerId}` });
    if (keep) this.protectedIds.add(wallet.id);
    return wallet.id;
  }

  /** A signed mobile money webhook: the way money comes in. */
  async fund(walletId: string, amount: string, currencyCode: string, secret: string, pool: IdPools): Promise<void> {
    this.deliveries += 1;
    const fields = {
      transactionId: `fz-seed-${this.deliveries}`,
      walletId,
      amountText: amount,
      currencyCode,
      phoneNumber: '+254700000001',
      timestamp: new Date().toISOString(),
    };
    const body = {
      transactionId: fields.transactionId,
      phoneNumber: fields.phoneNumber,
      amount,
      currencyCode,
      walletId,
      signature: momoWebhookSignature(secret, fields),
      timestamp: fields.timestamp,
      providerCode: 'mtn',
    };
    const deposit = (await whenReady(() => this.anonymous.request({ method: 'POST', path: WEBHOOK, body }), `funding ${walletId}`))
      .data as { id: string };
    pool.deposit.push(deposit.id);
  }

  async login(email: string, tenantSlug: string): Promise<string> {
    return (await this.anonymous.auth.login({ email, password: PASSWORD, tenantSlug })).token;
  }

  /** Journal entries and ledger accounts of a world, and the runs the reconciliation schedule recorded. */
  async entriesAndRuns(a: WalletClient, aTest: WalletClient, b: WalletClient): Promise<void> {
    const entries = async (client: WalletClient) =>
      ((await client.request({ method: 'GET', path: '/v1/journal?limit=5' })).data as { data: Array<{ id: string }> }).data.map(
        (entry) => entry.id,
      );
    this.own.journalEntry.push(...(await entries(a)));
    this.otherEnvironment.journalEntry.push(...(await entries(aTest)));
    this.otherTenant.journalEntry.push(...(await entries(b)));
    // Ledger accounts, for the platform's balance as of a moment.
    const accounts = async (client: WalletClient) =>
      ((await client.request({ method: 'GET', path: '/v1/ledger/accounts?limit=5' })).data as { data: Array<{ id: string }> }).data.map(
        (account) => account.id,
      );
    this.own.account.push(...(await accounts(a)));
    this.otherEnvironment.account.push(...(await accounts(aTest)));
    this.otherTenant.account.push(...(await accounts(b)));
    const runs = await waitFor(
      async () => {
        const page = (await this.platform.request({ method: 'GET', path: '/v1/system/reconciliation/runs' })).data as {
          data: Array<{ id: string }>;
        };
        return page.data.length > 0 ? page.data : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'a scheduled reconciliation run' },
    );
    this.own.reconciliationRun.push(...runs.map((run) => run.id));
    await waitFor(async () => (this.inviteTokens.length >= 2 ? true : undefined), { timeoutMs: 30_000, what: 'the invite emails' });
  }

  /** Whose each resource is, for routes that name a tenant and one of its resources. */
  tenantOf(a: string, b: string): Record<string, string> {
    const owners: Record<string, string> = {};
    for (const [pools, tenantId] of [
      [this.own, a],
      [this.otherEnvironment, a],
      [this.otherTenant, b],
    ] as const) {
      for (const [kind, ids] of Object.entries(pools)) if (kind !== 'tenant') for (const id of ids) owners[id] = tenantId;
    }
    return owners;
  }

  /** One issued cursor of every list that has a second page, so forged ones can be made from real ones. */
  async cursors(world: FuzzWorld, tenant: WalletClient): Promise<void> {
    for (const route of ROUTES) {
      if (route.method !== 'get' || !route.query || !('cursor' in route.query.shape)) continue;
      const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => world.ids.own[kindOfPathParam(route.path, name)][0] ?? '');
      const client = route.surface === 'system' ? this.platform : tenant;
      try {
        const page = (await client.request({ method: 'GET', path: `${path}?limit=1` })).data as { nextCursor?: string | null };
        if (typeof page.nextCursor === 'string') {
          world.cursors[route.path] = [page.nextCursor];
          world.cursorPaths[page.nextCursor] = path;
        }
      } catch {
        // A list that answers nothing here still gets forged cursors made up from scratch.
      }
    }
  }
}

/** A record of every kind in a world: two of the fuzz tenant's own, so its lists have cursors. */
async function records(
  client: WalletClient,
  walletId: string,
  payee: string,
  requestedBy: string,
  pool: IdPools,
  copies: number,
): Promise<void> {
  for (let i = 0; i < copies; i += 1) {
    pool.transfer.push(
      (await client.transfers.create({ fromWalletId: walletId, toWalletId: payee, amount: '1.00', currencyCode: 'KES' })).id,
    );
    pool.deposit.push(
      (
        await client.deposits.submitBankSlip({
          walletId,
          amount: '10.00',
          currencyCode: 'KES',
          bankCode: 'stanbic',
          slipReference: `FZ-SEED-${randomUUID().slice(0, 8)}`,
        })
      ).id,
    );
    pool.payoutCase.push(
      (
        await client.payouts.create({
          walletId,
          amount: '1.00',
          currencyCode: 'KES',
          payoutMethod: 'momo',
          destination: { phoneNumber: '+254700000001', network: 'safaricom' },
          requestedBy,
        })
      ).id,
    );
    pool.floatDeposit.push((await client.treasury.floatDeposits.create({ amount: '500.00', currencyCode: 'KES', rail: 'momo' })).id);
    pool.withdrawal.push(
      (
        await client.treasury.withdrawals.create({
          source: 'operating_float',
          amount: '10.00',
          currencyCode: 'KES',
          payoutMethod: 'cash',
          destination: { recipientName: 'Fuzz' },
          requestedBy,
        })
      ).id,
    );
    pool.feeSchedule.push(
      ((await client.request({ method: 'POST', path: '/v1/admin/fee-schedules', body: { name: `fuzz ${i}` } })).data as { id: string }).id,
    );
    // A public address nothing is delivered to: only on-demand test events are subscribed.
    pool.webhookEndpoint.push(
      (await client.webhookEndpoints.create({ url: 'https://1.1.1.1/hooks', eventTypes: ['webhook_endpoint.test'] })).id,
    );
  }
  // The records above announce events; identity logs them shortly after.
  const events = await whenReady(async () => {
    const page = await client.events.list({ limit: copies });
    if (page.data.length < copies) throw new Error('events not logged yet');
    return page.data;
  }, 'the world’s events');
  pool.event.push(...events.map((event) => event.id));
}

/** A bank slip verified against an imported statement line: a completed deposit of the other kind. `verifier` may verify (an operator). */
async function verifiedSlip(client: WalletClient, walletId: string, verifier: string, pool: IdPools): Promise<void> {
  const slip = await client.deposits.submitBankSlip({
    walletId,
    amount: '10.00',
    currencyCode: 'KES',
    bankCode: 'stanbic',
    slipReference: 'FZ-VERIFIED',
  });
  await client.deposits.importStatement({
    bankCode: 'stanbic',
    currencyCode: 'KES',
    lines: [{ date: new Date().toISOString().slice(0, 10), reference: 'fz-verified', amount: '10.00' }],
  });
  await client.deposits.verify(slip.id, { actorId: verifier });
  pool.deposit.push(slip.id);
}

export async function buildWorld(system: SecuritySystem, inviteTokens: string[]): Promise<FuzzWorld> {
  const builder = new WorldBuilder(system, inviteTokens);
  const { own, otherEnvironment, otherTenant } = builder;
  const a = await builder.tenant('fuzz-a');
  const b = await builder.tenant('fuzz-b');
  own.tenant.push(a.id);
  otherTenant.tenant.push(b.id);
  await builder.spareTenants();

  const testKey = await builder.platform.apiKeys.createForTenant(a.id, {
    name: 'fuzz test admin',
    scopes: ['tenant:manage'],
    environment: 'test',
  });
  const aTest = builder.keyClient(testKey.key as string);
  otherEnvironment.apiKey.push(testKey.id);
  const hmac = await a.admin.apiKeys.create({ name: 'fuzz signer', authMode: 'hmac', scopes: ['tenant:manage'], environment: 'live' });
  own.apiKey.push(hmac.id);
  builder.protectedIds.add(testKey.id).add(hmac.id);
  const { revokedKey } = await builder.keys(a, aTest, b);

  // A maker, a checker and an admin who logs in (kept), and members the fuzz may change.
  const requester = await builder.member(a, 'requester', 'operator', own, true);
  const approver = await builder.member(a, 'approver', 'approver', own, true);
  const loginAdmin = await builder.member(a, 'admin', 'org-admin', own, true);
  for (const name of ['spare-1', 'spare-2']) await builder.member(a, name, 'observer', own, false);
  const bRequester = await builder.member(b, 'requester', 'operator', otherTenant, true);
  await builder.member(b, 'approver', 'approver', otherTenant, true);
  const sessionToken = await builder.login(loginAdmin.email, a.slug);

  const webhookSecret = await builder.provider(a, 'mtn', own, true);
  await builder.provider(a, 'airtel', own, false);
  const bSecret = await builder.provider(b, 'mtn', otherTenant, true);

  const rich = await builder.wallet(a.admin, 'fz-rich', 'KES', own);
  for (let i = 0; i < 3; i += 1) await builder.fund(rich, '900000.00', 'KES', webhookSecret, own);
  const funded = await builder.wallet(a.admin, 'fz-funded', 'KES', own);
  await builder.fund(funded, '100000.00', 'KES', webhookSecret, own);
  const payee = await builder.wallet(a.admin, 'fz-payee', 'KES', own);
  const ugx = await builder.wallet(a.admin, 'fz-ugx', 'UGX', own);
  await builder.fund(ugx, '100000', 'UGX', webhookSecret, own);
  await builder.wallet(a.admin, 'fz-ugx-payee', 'UGX', own);
  const kwd = await builder.wallet(a.admin, 'fz-kwd', 'KWD', own);
  await builder.fund(kwd, '100.000', 'KWD', webhookSecret, own);
  await builder.wallet(a.admin, 'fz-kwd-payee', 'KWD', own);
  // Freeze and unfreeze aim at these two only.
  await builder.fund(await builder.wallet(a.admin, 'fz-freeze', 'KES', own, false), '1000.00', 'KES', webhookSecret, own);
  await builder.wallet(a.admin, 'fz-freeze-empty', 'KES', own, false);
  const testWallet = await builder.wallet(aTest, 'fz-test', 'KES', otherEnvironment);
  await builder.fund(testWallet, '1000.00', 'KES', webhookSecret, otherEnvironment);
  const bWallet = await builder.wallet(b.admin, 'fz-b', 'KES', otherTenant);
  await builder.fund(bWallet, '1000.00', 'KES', bSecret, otherTenant);

  await records(a.admin, funded, payee, requester.id, own, 2);
  await records(
    aTest,
    testWallet,
    await builder.wallet(aTest, 'fz-test-payee', 'KES', otherEnvironment),
    requester.id,
    otherEnvironment,
    1,
  );
  await records(b.admin, bWallet, await builder.wallet(b.admin, 'fz-b-payee', 'KES', otherTenant), bRequester.id, otherTenant, 1);
  await verifiedSlip(a.admin, funded, requester.id, own);
  await builder.entriesAndRuns(a.admin, aTest, b.admin);

  const world: FuzzWorld = {
    tenantId: a.id,
    tenantSlug: a.slug,
    maxTransactionAmount: CONFIG.maxTransactionAmount,
    currencies: CONFIG.allowedCurrencies,
    ids: { own, otherEnvironment, otherTenant },
    protectedIds: builder.protectedIds,
    wallets: builder.wallets,
    fundedWallets: [rich, rich, funded, ugx, kwd],
    members: { requester: requester.id, approver: approver.id, loginEmail: loginAdmin.email, loginPassword: PASSWORD },
    providerCode: 'mtn',
    webhookSecret,
    cursors: {},
    cursorPaths: {},
    tenantOf: builder.tenantOf(a.id, b.id),
    inviteTokens,
    credentials: {
      secretKey: a.adminKey.key,
      hmac: { keyId: hmac.id, signingSecret: hmac.signingSecret as string },
      sessionToken,
      systemKey: SYSTEM_KEY,
      revokedSecretKey: revokedKey,
    },
    usedIdempotencyKeys: [],
  };
  await builder.cursors(world, a.admin);
  return world;
}
