import { randomUUID } from 'node:crypto';
import { reconciliationResultSchema, ROUTES, type RouteContract, systemAnalyticsSchema, tenantAnalyticsSchema } from '@wallet/contracts';
import { LedgerCommandClient } from '@wallet/money-commands';
import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from './in-process-system';

/**
 * Every tenant route that takes an id, called by another tenant (and from the other
 * environment, where the resource belongs to one) with a key that may do anything: always
 * 404, never 403, and the resource is left as it was. A new route with an id fails this test
 * until it is given a resource here.
 */
let system: SecuritySystem;
let platform: WalletClient;
let ledger: LedgerCommandClient;

interface Owned {
  /** Path parameters naming tenant A's resource. */
  params: Record<string, string>;
  /** Whether the resource belongs to one environment (then the other environment gets 404 too). */
  environmentBound: boolean;
}

interface TenantA {
  tenantId: string;
  admin: WalletClient;
  resources: Record<string, Owned>;
  /** A deposit only the ledger names: tenant A's reconciliation reports it, nobody else's may. */
  strayDepositId: string;
}

let tenantA: TenantA;
let intruder: WalletClient;
let otherEnvironment: WalletClient;

async function newTenant(): Promise<string> {
  const slug = `xt-${randomUUID().slice(0, 8)}`;
  return (
    await platform.system.tenants.create({
      name: slug,
      slug,
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '100000' },
    })
  ).id;
}

async function keyClient(tenantId: string, environment: 'test' | 'live'): Promise<WalletClient> {
  const key = await platform.apiKeys.createForTenant(tenantId, { name: `${environment} admin`, scopes: ['tenant:manage'], environment });
  return new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key.key as string }, maxRetries: 0 });
}

beforeAll(async () => {
  system = await startSecuritySystem('security_xtenant', {
    GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0',
  });
  platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  ledger = await LedgerCommandClient.connect(system.env.AMQP_URL as string, 'security-tests');

  const tenantId = await newTenant();
  const admin = await keyClient(tenantId, 'live');
  const key = await admin.apiKeys.create({ name: 'target', scopes: ['ledger:read'], environment: 'live' });
  const member = await admin.team.create({
    name: 'Target',
    email: `target-${randomUUID().slice(0, 8)}@example.com`,
    password: 'a long enough password',
    orgRole: 'observer',
  });
  const provider = await admin.momoProviders.create({ providerCode: 'mtn', name: 'MTN' });
  const wallet = (
    await admin.request({ method: 'POST', path: '/v1/wallets', body: { ownerType: 'user', ownerId: 'target-owner', currencyCode: 'KES' } })
  ).data as { id: string };
  const feeSchedule = (await admin.request({ method: 'POST', path: '/v1/admin/fee-schedules', body: { name: 'Target' } })).data as {
    id: string;
  };
  const deposit = (
    await admin.request({
      method: 'POST',
      path: '/v1/deposits/bank-slips',
      body: { walletId: wallet.id, amount: '10.00', currencyCode: 'KES', bankCode: 'stanbic', slipReference: 'TARGET-SLIP' },
    })
  ).data as { id: string };
  const walletId = `wl_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const strayDepositId = `dep_${randomUUID().slice(0, 8)}`;
  const posted = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `xt-${randomUUID()}`,
    tenantId,
    environment: 'live',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: strayDepositId },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount: '100.00', currencyCode: 'KES' },
      { accountName: 'wallet:owner-1', walletId, direction: 'CR', amount: '100.00', currencyCode: 'KES' },
    ],
  });
  if (posted.status !== 'posted' || !posted.journalEntryId) throw new Error(`setup entry not posted: ${JSON.stringify(posted)}`);
  const payer = (
    await admin.request({
      method: 'POST',
      path: '/v1/wallets',
      body: { ownerType: 'user', ownerId: 'transfer-payer', currencyCode: 'KES' },
    })
  ).data as { id: string };
  const payee = (
    await admin.request({
      method: 'POST',
      path: '/v1/wallets',
      body: { ownerType: 'user', ownerId: 'transfer-payee', currencyCode: 'KES' },
    })
  ).data as { id: string };
  const funded = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `xt-${randomUUID()}`,
    tenantId,
    environment: 'live',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount: '10.00', currencyCode: 'KES' },
      { accountName: 'wallet:transfer-payer', walletId: payer.id, direction: 'CR', amount: '10.00', currencyCode: 'KES' },
    ],
  });
  if (funded.status !== 'posted') throw new Error(`setup funding not posted: ${JSON.stringify(funded)}`);
  const transfer = (
    await admin.request({
      method: 'POST',
      path: '/v1/transfers',
      body: { fromWalletId: payer.id, toWalletId: payee.id, amount: '1.00', currencyCode: 'KES' },
    })
  ).data as { id: string };
  const maker = await admin.team.create({
    name: 'Maker',
    email: `maker-${randomUUID().slice(0, 8)}@example.com`,
    password: 'a long enough password',
    orgRole: 'operator',
  });
  // A match of the slip with a line of its money under the bank's own reference, for its decisions.
  await admin.deposits.importStatement({
    bankCode: 'stanbic',
    currencyCode: 'KES',
    lines: [{ date: '2026-11-30', reference: 'BANK TARGET', amount: '10.00' }],
  });
  const line = (await admin.deposits.statementLines({ matched: 'false' })).data.find((each) => each.reference === 'BANK TARGET');
  if (!line) throw new Error('setup statement line not listed');
  const match = await admin.reconciliation.matches.propose({
    depositId: deposit.id,
    statementLineId: line.id,
    reason: 'the bank wrote its own reference',
    proposedBy: maker.id,
  });
  const payout = await admin.payouts.create({
    walletId: payer.id,
    amount: '1.00',
    currencyCode: 'KES',
    payoutMethod: 'momo',
    destination: { phoneNumber: '+254700000001', network: 'safaricom' },
    requestedBy: maker.id,
  });
  if (payout.status !== 'pending') throw new Error(`setup payout not pending: ${JSON.stringify(payout)}`);
  const floatDeposit = (
    await admin.request({
      method: 'POST',
      path: '/v1/admin/money/float-deposits',
      body: { amount: '50.00', currencyCode: 'KES', rail: 'momo' },
    })
  ).data as { id: string };
  const withdrawal = await admin.treasury.withdrawals.create({
    source: 'operating_float',
    amount: '10.00',
    currencyCode: 'KES',
    payoutMethod: 'cash',
    destination: { recipientName: 'Target' },
    requestedBy: maker.id,
  });
  if (withdrawal.status !== 'pending' || !withdrawal.holdJournalEntryId)
    throw new Error(`setup withdrawal not held: ${JSON.stringify(withdrawal)}`);
  const fullRun = (await admin.request({ method: 'POST', path: '/v1/admin/reconciliation/runs' })).data as { id: string };
  // A public address nothing is delivered to: only on-demand test events are subscribed.
  const endpoint = await admin.webhookEndpoints.create({ url: 'https://1.1.1.1/hooks', eventTypes: ['webhook_endpoint.test'] });
  const event = await waitFor(async () => (await admin.events.list({ limit: 1 })).data[0], {
    timeoutMs: 20_000,
    what: 'an event of tenant A',
  });

  tenantA = {
    tenantId,
    admin,
    resources: {
      '/v1/developer/api-keys/{id}': { params: { id: key.id }, environmentBound: true },
      '/v1/team/{memberId}': { params: { memberId: member.id }, environmentBound: false },
      '/v1/admin/momo-providers/{id}': { params: { id: provider.id }, environmentBound: false },
      '/v1/wallets/{id}': { params: { id: wallet.id }, environmentBound: true },
      '/v1/admin/fee-schedules/{id}': { params: { id: feeSchedule.id }, environmentBound: false },
      '/v1/journal/{id}': { params: { id: posted.journalEntryId }, environmentBound: true },
      '/v1/deposits/{id}': { params: { id: deposit.id }, environmentBound: true },
      '/v1/ledger/wallets/{walletId}': { params: { walletId }, environmentBound: true },
      '/v1/transfers/{id}': { params: { id: transfer.id }, environmentBound: true },
      '/v1/payouts/cases/{id}': { params: { id: payout.id }, environmentBound: true },
      '/v1/payouts/{id}': { params: { id: payout.id }, environmentBound: true },
      '/v1/admin/money/float-deposits/{id}': { params: { id: floatDeposit.id }, environmentBound: true },
      '/v1/admin/money/withdrawals/{id}': { params: { id: withdrawal.id }, environmentBound: true },
      '/v1/admin/reconciliation/runs/{id}': { params: { id: fullRun.id }, environmentBound: true },
      '/v1/developer/webhook-endpoints/{id}': { params: { id: endpoint.id }, environmentBound: true },
      '/v1/events/{id}': { params: { id: event.id }, environmentBound: true },
      '/v1/reconciliation/matches/{id}': { params: { id: match.id }, environmentBound: true },
    },
    strayDepositId,
  };
  intruder = await keyClient(await newTenant(), 'live');
  otherEnvironment = await keyClient(tenantId, 'test');
});

afterAll(async () => {
  await ledger?.close();
  await system?.close();
});

/** Which resources belong to one environment; known before the tests are collected. */
const ENVIRONMENT_BOUND: Record<string, boolean> = {
  '/v1/developer/api-keys/{id}': true,
  '/v1/team/{memberId}': false,
  '/v1/admin/momo-providers/{id}': false,
  '/v1/wallets/{id}': true,
  '/v1/admin/fee-schedules/{id}': false,
  '/v1/journal/{id}': true,
  '/v1/deposits/{id}': true,
  '/v1/ledger/wallets/{walletId}': true,
  '/v1/transfers/{id}': true,
  '/v1/payouts/cases/{id}': true,
  '/v1/payouts/{id}': true,
  '/v1/admin/money/float-deposits/{id}': true,
  '/v1/admin/money/withdrawals/{id}': true,
  '/v1/admin/reconciliation/runs/{id}': true,
  '/v1/developer/webhook-endpoints/{id}': true,
  '/v1/events/{id}': true,
  '/v1/reconciliation/matches/{id}': true,
};

/** The resource a route acts on: its path up to and including the first parameter. */
function resourcePath(route: RouteContract): string | undefined {
  return /^(.*?\{\w+\})/.exec(route.path)?.[1];
}

function ownedBy(route: RouteContract): Owned | undefined {
  const path = resourcePath(route);
  return path ? tenantA.resources[path] : undefined;
}

/** A body the route's schema accepts, so a 404 is about the id, never about the body. */
const VALID_BODIES: Record<string, unknown> = {
  'PATCH /v1/developer/api-keys/{id}': { name: 'renamed by an intruder' },
  'POST /v1/developer/api-keys/{id}/rotate': { expiresInSeconds: 0 },
  'POST /v1/developer/api-keys/{id}/revoke': {},
  'PATCH /v1/team/{memberId}': { status: 'deactivated' },
  'POST /v1/admin/momo-providers/{id}/rotate-secret': {},
  'POST /v1/wallets/{id}/freeze': { reason: 'frozen by an intruder' },
  'POST /v1/wallets/{id}/unfreeze': { reason: 'unfrozen by an intruder' },
  'POST /v1/admin/fee-schedules/{id}/rules': { transactionType: 'transfer', currencyCode: 'KES', flatFee: 1 },
  'POST /v1/admin/fee-schedules/{id}/publish': { makeDefault: true },
  'POST /v1/deposits/{id}/verify': { actorId: 'intruder' },
  'POST /v1/deposits/{id}/reopen': { actorId: 'intruder', reason: 'not mine' },
  'POST /v1/transfers/{id}/reversals': { reason: 'reversed by an intruder' },
  'POST /v1/payouts/{id}/approve': { actorId: 'intruder' },
  'POST /v1/payouts/{id}/reject': { actorId: 'intruder', reason: 'rejected by an intruder' },
  'POST /v1/admin/money/withdrawals/{id}/approve': { actorId: 'intruder' },
  'POST /v1/admin/money/withdrawals/{id}/reject': { actorId: 'intruder', reason: 'rejected by an intruder' },
  'PATCH /v1/developer/webhook-endpoints/{id}': { description: 'changed by an intruder' },
  'POST /v1/developer/webhook-endpoints/{id}/replay': { since: '2026-01-01T00:00:00.000Z' },
  'POST /v1/reconciliation/matches/{id}/approve': { actorId: 'intruder' },
  'POST /v1/reconciliation/matches/{id}/reject': { actorId: 'intruder', reason: 'rejected by an intruder' },
};

const routesWithIds = ROUTES.filter((route) => route.surface === 'tenant' && route.path.includes('{'));

async function outcome(caller: WalletClient, route: RouteContract): Promise<{ status: number; code: string }> {
  const owned = ownedBy(route) as Owned;
  const key = `${route.method.toUpperCase()} ${route.path}`;
  try {
    const result = await caller.request(
      {
        method: route.method.toUpperCase() as 'GET',
        path: route.path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(owned.params[name] ?? 'missing')),
        ...(route.method === 'get' ? {} : { body: VALID_BODIES[key] ?? {} }),
      },
      route.idempotencyKey === 'required' ? { idempotencyKey: `intruder-${randomUUID()}` } : {},
    );
    return { status: result.status, code: 'OK' };
  } catch (error) {
    if (isWalletApiError(error)) return { status: error.status, code: error.code };
    throw error;
  }
}

describe('another tenant names tenant A’s resources', () => {
  it('has a resource for every tenant route that takes an id', () => {
    expect(routesWithIds.length).toBeGreaterThan(0);
    expect(
      routesWithIds
        .filter((route) => !ownedBy(route) || ENVIRONMENT_BOUND[resourcePath(route) as string] === undefined)
        .map((route) => `${route.method} ${route.path}`),
    ).toEqual([]);
  });

  it.each(routesWithIds.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    '%s answers 404 to another tenant',
    async (_name, route) => {
      const result = await outcome(intruder, route);
      expect(result.status).toBe(404);
      expect(result.code).toMatch(/NOT_FOUND$/);
    },
  );

  it.each(
    routesWithIds
      .filter((route) => ENVIRONMENT_BOUND[resourcePath(route) ?? ''] === true)
      .map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const),
  )('%s answers 404 from the other environment', async (_name, route) => {
    const result = await outcome(otherEnvironment, route);
    expect(result.status).toBe(404);
  });

  it('left every resource of tenant A as it was', async () => {
    const resources = tenantA.resources;
    const key = await tenantA.admin.apiKeys.get(resources['/v1/developer/api-keys/{id}']?.params.id as string);
    expect(key).toMatchObject({ name: 'target', status: 'active' });
    const member = await tenantA.admin.team.get(resources['/v1/team/{memberId}']?.params.memberId as string);
    expect(member.status).toBe('active');
    const wallet = await tenantA.admin.request({
      method: 'GET',
      path: `/v1/wallets/${resources['/v1/wallets/{id}']?.params.id as string}`,
    });
    expect(wallet.data).toMatchObject({ status: 'active', balance: '0.00' });
    const schedule = await tenantA.admin.request({
      method: 'GET',
      path: `/v1/admin/fee-schedules/${resources['/v1/admin/fee-schedules/{id}']?.params.id as string}`,
    });
    expect(schedule.data).toMatchObject({ status: 'draft', isDefault: false, rules: [] });
    const deposit = await tenantA.admin.request({
      method: 'GET',
      path: `/v1/deposits/${resources['/v1/deposits/{id}']?.params.id as string}`,
    });
    expect(deposit.data).toMatchObject({ status: 'pending', verifiedBy: null });
    const payout = await tenantA.admin.payouts.get(resources['/v1/payouts/cases/{id}']?.params.id as string);
    expect(payout).toMatchObject({ status: 'pending', decidedBy: null });
    const withdrawal = await tenantA.admin.treasury.withdrawals.get(resources['/v1/admin/money/withdrawals/{id}']?.params.id as string);
    expect(withdrawal).toMatchObject({ status: 'pending', decidedBy: null, decisionJournalEntryId: null });
    expect((await tenantA.admin.treasury.balances()).data.find((row) => row.currencyCode === 'KES')).toMatchObject({
      operatingFloat: '40.00',
      payoutClearing: '0.00',
    });
    const audit = await tenantA.admin.auditEvents.list({ limit: 200 });
    expect(
      audit.data.filter((event) =>
        [
          'api_key.updated',
          'api_key.rotated',
          'api_key.revoked',
          'team_member.deactivated',
          'momo_provider.secret_rotated',
          'wallet.frozen',
          'wallet.unfrozen',
        ].includes(event.action),
      ),
    ).toEqual([]);
  });
});

describe('GET /v1/admin/reconciliation', () => {
  async function reconciliationOf(caller: WalletClient) {
    return reconciliationResultSchema.parse((await caller.request({ method: 'GET', path: '/v1/admin/reconciliation' })).data);
  }

  it("reports tenant A's mismatches to tenant A and the platform, never to another tenant or environment", async () => {
    const own = await reconciliationOf(tenantA.admin);
    expect(own.status).toBe('mismatch');
    expect(own.checks.find((check) => check.name === 'business_records')?.mismatches).toEqual(
      expect.arrayContaining([expect.objectContaining({ recordId: tenantA.strayDepositId, problem: 'record_not_found' })]),
    );
    for (const caller of [intruder, otherEnvironment]) {
      const seen = JSON.stringify(await reconciliationOf(caller));
      expect(seen).not.toContain(tenantA.tenantId);
      expect(seen).not.toContain(tenantA.strayDepositId);
    }
    const everything = await platform.request({ method: 'GET', path: '/v1/system/reconciliation' });
    expect(JSON.stringify(everything.data)).toContain(tenantA.strayDepositId);
  });

  it('needs analytics:read', async () => {
    const key = await tenantA.admin.apiKeys.create({ name: 'reads wallets only', scopes: ['wallets:read'], environment: 'live' });
    const walletsOnly = new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key.key as string }, maxRetries: 0 });
    const refused = await walletsOnly.request({ method: 'GET', path: '/v1/admin/reconciliation' }).catch((error: unknown) => error);
    expect(isWalletApiError(refused) ? `${refused.status} ${refused.code}` : refused).toBe('403 INSUFFICIENT_SCOPE');
    const analytics = await tenantA.admin.apiKeys.create({ name: 'analytics', scopes: ['analytics:read'], environment: 'live' });
    const analyst = new WalletClient({
      baseUrl: system.publicUrl,
      auth: { type: 'secret', apiKey: analytics.key as string },
      maxRetries: 0,
    });
    expect((await reconciliationOf(analyst)).status).toBe('mismatch');
  });
});

describe('GET /v1/admin/analytics', () => {
  /** Tenant A's KES figures once the read models hold its setup entries (fed by the ledger's events). */
  async function settledAnalyticsOfA() {
    return waitFor(
      async () => {
        const read = tenantAnalyticsSchema.parse((await tenantA.admin.request({ method: 'GET', path: '/v1/admin/analytics' })).data);
        const kes = read.currencies.find((row) => row.currencyCode === 'KES');
        // The float deposit (50.00) less the pending withdrawal's hold (10.00).
        return kes && kes.pendingPayouts.count === 1 && kes.pendingWithdrawals.count === 1 && kes.liquidity.operatingFloat === '40.00'
          ? { read, kes }
          : undefined;
      },
      { what: "tenant A's setup entries in its analytics" },
    );
  }

  it("reports tenant A's figures to tenant A and the platform, never to another tenant or environment", async () => {
    const { kes } = await settledAnalyticsOfA();
    // The stray deposit (100.00) and the transfer's funding (10.00), both momo deposits.
    expect(kes.byKind.find((row) => row.kind === 'momo_deposit')).toMatchObject({ entryCount: 2, volume: '110.00' });
    expect(kes.liquidity.momoFloat).toBe('110.00');
    const ofIntruder = tenantAnalyticsSchema.parse((await intruder.request({ method: 'GET', path: '/v1/admin/analytics' })).data);
    expect(ofIntruder.currencies).toEqual([]);
    expect(JSON.stringify(ofIntruder)).not.toContain(tenantA.tenantId);
    // The same tenant's test environment is another book: none of the live figures.
    const ofTest = tenantAnalyticsSchema.parse((await otherEnvironment.request({ method: 'GET', path: '/v1/admin/analytics' })).data);
    expect(ofTest).toMatchObject({ environment: 'test', currencies: [], lastEntryAt: null });
    const everything = systemAnalyticsSchema.parse((await platform.request({ method: 'GET', path: '/v1/system/analytics' })).data);
    expect(
      everything.tenants.find((row) => row.tenantId === tenantA.tenantId)?.currencies.find((row) => row.currencyCode === 'KES')?.totals,
    ).toEqual(kes.totals);
  });

  it("needs analytics:read, and counts the refusal among the tenant's request errors", async () => {
    const key = await tenantA.admin.apiKeys.create({ name: 'reads wallets, not analytics', scopes: ['wallets:read'], environment: 'live' });
    const walletsOnly = new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key.key as string }, maxRetries: 0 });
    const refused = await walletsOnly.request({ method: 'GET', path: '/v1/admin/analytics' }).catch((error: unknown) => error);
    expect(isWalletApiError(refused) ? `${refused.status} ${refused.code}` : refused).toBe('403 INSUFFICIENT_SCOPE');
    const errors = await waitFor(
      async () => {
        const read = tenantAnalyticsSchema.parse((await tenantA.admin.request({ method: 'GET', path: '/v1/admin/analytics' })).data);
        const section = read.requestErrors;
        return section.available && section.byErrorCode.some((row) => row.errorCode === 'INSUFFICIENT_SCOPE') ? section : undefined;
      },
      { what: 'the refusal among the request errors' },
    );
    expect(errors.byStatus.find((row) => row.status === 403)?.count).toBeGreaterThanOrEqual(1);
    expect(errors.totalRequests).toBeGreaterThan(errors.errorCount);
    const intruderErrors = tenantAnalyticsSchema.parse(
      (await intruder.request({ method: 'GET', path: '/v1/admin/analytics' })).data,
    ).requestErrors;
    expect(intruderErrors.available && intruderErrors.byErrorCode.some((row) => row.errorCode === 'INSUFFICIENT_SCOPE')).toBe(false);
  });
});
