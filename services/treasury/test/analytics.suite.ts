import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import {
  type LedgerEntriesPostedV1,
  type LedgerPostV1,
  type PostingLine,
  systemAnalyticsSchema,
  type TenantAnalytics,
  tenantAnalyticsSchema,
  treasuryBalancesSchema,
} from '@wallet/contracts';
import { signInternalToken } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { waitFor } from '@wallet/kit/testing';
import { TREASURY_TOPOLOGY } from '../src/topology';
import { type Caller, INTERNAL_SECRET, startTreasuryHarness, type TreasuryHarness } from './support';

/**
 * Real parts: the ledger and treasury in-process on fresh databases and one fresh vhost. The
 * entries are posted to the real ledger as payments would post them (fee lines of
 * docs/decisions/money-movements.md), and the analytics only ever learn of them from the ledger's
 * entries-posted events. No gateway runs, so the request-error section is unavailable here
 * (the gateway's own tests count request errors).
 */
let harness: TreasuryHarness;
let ledger: LedgerCommandClient;

beforeAll(async () => {
  // Nothing listens on port 9: the gateway cannot be asked.
  harness = await startTreasuryHarness({ GATEWAY_INTERNAL_URL: 'http://127.0.0.1:9', TREASURY_GATEWAY_TIMEOUT_MS: '500' });
  ledger = await LedgerCommandClient.connect(harness.amqpUrl, 'analytics-tests');
});

afterAll(async () => {
  await ledger?.close();
  await harness?.close();
});

function walletId(): string {
  return `wl_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

const wallet = (id: string, direction: 'DR' | 'CR', amount: string, currencyCode = 'USD'): PostingLine => ({
  accountName: `wallet:${id}`,
  walletId: id,
  direction,
  amount,
  currencyCode,
});
const account = (accountName: string, direction: 'DR' | 'CR', amount: string, currencyCode = 'USD'): PostingLine => ({
  accountName,
  direction,
  amount,
  currencyCode,
});
/** Fee lines: CR revenue:fees fee, DR revenue:fees commission, CR platform-commission commission. */
const feeLines = (fee: string, commission: string, currencyCode = 'USD'): PostingLine[] => [
  account('revenue:fees', 'CR', fee, currencyCode),
  ...(commission !== '0'
    ? [account('revenue:fees', 'DR', commission, currencyCode), account('platform-commission', 'CR', commission, currencyCode)]
    : []),
];

async function post(caller: Caller, kind: LedgerPostV1['kind'], referenceId: string, lines: PostingLine[]): Promise<string> {
  const result = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `an-${randomUUID()}`,
    tenantId: caller.tenantId,
    environment: caller.environment,
    kind,
    reference: { type: kind, id: referenceId },
    lines,
  });
  if (result.status !== 'posted' || !result.journalEntryId) throw new Error(`not posted: ${JSON.stringify(result)}`);
  return result.journalEntryId;
}

async function analyticsOf(caller: Caller, query = ''): Promise<TenantAnalytics> {
  const response = await harness.request(caller, 'GET', `/v1/admin/analytics${query}`, { scopes: ['analytics:read'] });
  if (response.status !== 200) throw new Error(`analytics answered ${response.status}: ${JSON.stringify(response.body)}`);
  return tenantAnalyticsSchema.parse(response.body);
}

/** The read models are fed asynchronously: wait until they hold `entryCount` entries in the currency. */
async function analyticsWith(caller: Caller, entryCount: number, currencyCode = 'USD'): Promise<TenantAnalytics> {
  return waitFor(
    async () => {
      const read = await analyticsOf(caller);
      return read.currencies.find((row) => row.currencyCode === currencyCode)?.totals.entryCount === entryCount ? read : undefined;
    },
    { what: `${entryCount} ${currencyCode} entries in ${caller.tenantId}'s analytics` },
  );
}

function usd(read: TenantAnalytics) {
  const row = read.currencies.find((item) => item.currencyCode === 'USD');
  if (!row) throw new Error('no USD row');
  return row;
}

async function systemAnalytics(query: string) {
  const token = signInternalToken(INTERNAL_SECRET, {
    surface: 'system',
    authMode: 'system',
    tenantId: null,
    environment: null,
    keyId: null,
    scopes: ['*'],
    actor: null,
  });
  const response = await fetch(`${harness.url}/v1/system/analytics${query}`, { headers: { 'x-internal-token': token } });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('GET /v1/admin/analytics', () => {
  let tenantA: Caller;
  let tenantB: Caller;
  let depositEntryId: string;
  const payer = walletId();
  const payee = walletId();
  const payoutCaseId = `po_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    tenantA = await harness.newCaller();
    tenantB = await harness.newCaller();
    // A momo deposit of 100.00 with a 1.50 fee (commission 0.15), then a transfer of 40.00 with
    // a 0.40 fee (commission 0.04), a payout of 20.00 held with its 0.50 fee, and float of 500.00.
    depositEntryId = await post(tenantA, 'momo_deposit', `dep_${randomUUID()}`, [
      account('momo-float:mtn', 'DR', '100.00'),
      wallet(payer, 'CR', '98.50'),
      ...feeLines('1.50', '0.15'),
    ]);
    await post(tenantA, 'transfer', `tr_${randomUUID()}`, [
      wallet(payer, 'DR', '40.00'),
      wallet(payer, 'DR', '0.40'),
      wallet(payee, 'CR', '40.00'),
      ...feeLines('0.40', '0.04'),
    ]);
    await post(tenantA, 'payout_hold', payoutCaseId, [wallet(payee, 'DR', '20.50'), account('suspense', 'CR', '20.50')]);
    await post(tenantA, 'tenant_float_deposit', `fd_${randomUUID()}`, [
      account('asset:pool:USD', 'DR', '500.00'),
      account('asset:momo-clearing:USD', 'CR', '500.00'),
    ]);
    // Tenant B: one deposit of 7.00 with a 0.70 fee and a 0.07 commission.
    const other = walletId();
    await post(tenantB, 'momo_deposit', `dep_${randomUUID()}`, [
      account('momo-float:mtn', 'DR', '7.00'),
      wallet(other, 'CR', '6.30'),
      ...feeLines('0.70', '0.07'),
    ]);
  });

  it('reports exact fee revenue, volume and counts by kind, and the payout held', async () => {
    const row = usd(await analyticsWith(tenantA, 4));
    expect(row.totals).toEqual({ entryCount: 4, volume: '660.90', feeRevenue: '1.71', platformCommission: '0.19' });
    expect(row.byKind).toEqual([
      { kind: 'momo_deposit', entryCount: 1, volume: '100.00', feeRevenue: '1.35', platformCommission: '0.15' },
      { kind: 'transfer', entryCount: 1, volume: '40.40', feeRevenue: '0.36', platformCommission: '0.04' },
      { kind: 'payout_hold', entryCount: 1, volume: '20.50', feeRevenue: '0.00', platformCommission: '0.00' },
      { kind: 'tenant_float_deposit', entryCount: 1, volume: '500.00', feeRevenue: '0.00', platformCommission: '0.00' },
    ]);
    expect(row.daily).toEqual([
      { date: new Date().toISOString().slice(0, 10), entryCount: 4, volume: '660.90', feeRevenue: '1.71', platformCommission: '0.19' },
    ]);
    expect(row.pendingPayouts).toEqual({ count: 1, amount: '20.50' });
    expect(row.pendingWithdrawals).toEqual({ count: 0, amount: '0.00' });
  });

  it('reports liquidity equal to the ledger balances', async () => {
    const row = usd(await analyticsWith(tenantA, 4));
    expect(row.liquidity).toEqual({
      wallets: '77.60',
      operatingFloat: '500.00',
      momoFloat: '100.00',
      bankFloat: '0.00',
      railClearing: '-500.00',
      suspense: '20.50',
      payoutClearing: '0.00',
      feeRevenue: '1.71',
      platformCommission: '0.19',
    });
    const balances = treasuryBalancesSchema.parse((await harness.request(tenantA, 'GET', '/v1/admin/money/balances')).body);
    const ledgerUsd = balances.data.find((item) => item.currencyCode === 'USD');
    expect(ledgerUsd).toEqual({
      currencyCode: 'USD',
      operatingFloat: row.liquidity.operatingFloat,
      tenantFeeRevenue: row.liquidity.feeRevenue,
      platformCommission: row.liquidity.platformCommission,
      suspense: row.liquidity.suspense,
      payoutClearing: row.liquidity.payoutClearing,
    });
  });

  it("never includes another tenant's figures", async () => {
    const ofB = usd(await analyticsWith(tenantB, 1));
    expect(ofB.totals).toEqual({ entryCount: 1, volume: '7.00', feeRevenue: '0.63', platformCommission: '0.07' });
    expect(ofB.liquidity.wallets).toBe('6.30');
    expect(ofB.pendingPayouts).toEqual({ count: 0, amount: '0.00' });
    const ofA = await analyticsWith(tenantA, 4);
    expect(ofA.tenantId).toBe(tenantA.tenantId);
    expect(usd(ofA).totals.entryCount).toBe(4);
    // The other environment of the same tenant is another book.
    const otherEnvironment = await analyticsOf({ tenantId: tenantA.tenantId, environment: 'test' });
    expect(otherEnvironment.currencies).toEqual([]);
  });

  it('bounds the daily figures by from and to, and refuses an empty range', async () => {
    await analyticsWith(tenantA, 4);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const before = usd(await analyticsOf(tenantA, `?from=${yesterday}&to=${today}`));
    expect(before.totals).toEqual({ entryCount: 0, volume: '0.00', feeRevenue: '0.00', platformCommission: '0.00' });
    expect(before.byKind).toEqual([]);
    // Balances and pending cases are now, whatever the range.
    expect(before.liquidity.wallets).toBe('77.60');
    const within = await analyticsOf(tenantA, `?from=${today}&to=${new Date().toISOString()}`);
    expect(within.from).toBe(`${today}T00:00:00.000Z`);
    expect(usd(within).totals.entryCount).toBe(4);
    const refused = await harness.request(tenantA, 'GET', `/v1/admin/analytics?from=${today}&to=${yesterday}`, {
      scopes: ['analytics:read'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    const onlyUgx = await analyticsOf(tenantA, '?currencyCode=UGX');
    expect(onlyUgx.currencies).toEqual([]);
  });

  it('marks request errors unavailable when the gateway cannot answer, and still reports the money', async () => {
    const read = await analyticsWith(tenantA, 4);
    expect(read.requestErrors).toEqual({ available: false, reason: 'The gateway could not be reached' });
  });

  it('counts the same entry once however often its event is delivered', async () => {
    await analyticsWith(tenantA, 4);
    const tenantC = await harness.newCaller();
    // A copy of tenant A's deposit entry, and a first entry for tenant C, in one event sent twice.
    const duplicate: LedgerEntriesPostedV1 = {
      type: 'ledger.entries-posted.v1',
      entries: [
        {
          journalEntryId: depositEntryId,
          tenantId: tenantA.tenantId,
          environment: 'live',
          kind: 'momo_deposit',
          reference: { type: 'momo_deposit', id: 'copy' },
          lines: [account('momo-float:mtn', 'DR', '100.00'), wallet(payer, 'CR', '98.50'), ...feeLines('1.50', '0.15')],
          createdAt: new Date().toISOString(),
        },
        {
          journalEntryId: `je_dup_${randomUUID().slice(0, 8)}`,
          tenantId: tenantC.tenantId,
          environment: 'live',
          kind: 'momo_deposit',
          reference: { type: 'momo_deposit', id: 'c' },
          lines: [account('momo-float:mtn', 'DR', '3.00'), wallet(walletId(), 'CR', '3.00')],
          createdAt: new Date().toISOString(),
        },
      ],
    };
    const connection = await amqp.connect(harness.amqpUrl);
    try {
      const channel = await connection.createConfirmChannel();
      for (let copy = 0; copy < 2; copy += 1)
        channel.sendToQueue(TREASURY_TOPOLOGY.analytics.queue, Buffer.from(JSON.stringify(duplicate)), {
          persistent: true,
          type: duplicate.type,
        });
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    const ofC = usd(await analyticsWith(tenantC, 1));
    expect(ofC.totals.volume).toBe('3.00');
    // Both copies were applied or skipped by now (they sit in one queue behind C's first sight).
    await waitFor(async () => ((await harness.db('analytics_entries').where({ tenant_id: tenantC.tenantId }).first()) ? true : undefined), {
      what: 'the copies to be consumed',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(usd(await analyticsOf(tenantC)).totals.entryCount).toBe(1);
    expect(usd(await analyticsOf(tenantA)).totals).toEqual({
      entryCount: 4,
      volume: '660.90',
      feeRevenue: '1.71',
      platformCommission: '0.19',
    });
  });

  it('drops the payout from pending once it is settled, and counts the fee it earned', async () => {
    await analyticsWith(tenantA, 4);
    await post(tenantA, 'payout_settle', payoutCaseId, [
      account('suspense', 'DR', '20.50'),
      account('payout-clearing', 'CR', '20.00'),
      ...feeLines('0.50', '0'),
    ]);
    const row = usd(await analyticsWith(tenantA, 5));
    expect(row.pendingPayouts).toEqual({ count: 0, amount: '0.00' });
    expect(row.byKind.find((item) => item.kind === 'payout_settle')).toEqual({
      kind: 'payout_settle',
      entryCount: 1,
      volume: '20.50',
      feeRevenue: '0.50',
      platformCommission: '0.00',
    });
    expect(row.liquidity).toMatchObject({ suspense: '0.00', payoutClearing: '20.00', feeRevenue: '2.21' });
  });

  it('GET /v1/system/analytics adds up every tenant, with the platform commission earned', async () => {
    await analyticsWith(tenantA, 5);
    await analyticsWith(tenantB, 1);
    const response = await systemAnalytics('?currencyCode=USD');
    expect(response.status).toBe(200);
    const view = systemAnalyticsSchema.parse(response.body);
    const tenants = new Map(view.tenants.map((item) => [item.tenantId, item.currencies[0]?.totals]));
    expect(tenants.get(tenantA.tenantId)).toEqual({ entryCount: 5, volume: '681.40', feeRevenue: '2.21', platformCommission: '0.19' });
    expect(tenants.get(tenantB.tenantId)).toEqual({ entryCount: 1, volume: '7.00', feeRevenue: '0.63', platformCommission: '0.07' });
    const everyTenant = view.tenants.reduce((sum, item) => sum + (item.currencies[0]?.totals.entryCount ?? 0), 0);
    expect(view.currencies).toHaveLength(1);
    expect(view.currencies[0]?.totals.entryCount).toBe(everyTenant);
    // Only A and B earned the platform commission: 0.19 + 0.07.
    expect(view.currencies[0]?.totals.platformCommission).toBe('0.26');
    expect(view.currencies[0]?.liquidity.platformCommission).toBe('0.26');

    const tenantCall = await harness.request(tenantA, 'GET', '/v1/system/analytics', { scopes: ['analytics:read'] });
    expect(tenantCall.status).toBe(403);
  });
});
