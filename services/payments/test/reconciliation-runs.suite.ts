import { randomUUID } from 'node:crypto';
import {
  depositSchema,
  momoWebhookSignature,
  type ReconciliationResult,
  reconciliationRunPageSchema,
  reconciliationRunSchema,
  type ReconciliationRunSummary,
  transferSchema,
  walletSchema,
} from '@wallet/contracts';
import { createDb, createMetrics, type Db, type Logger } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import pino from 'pino';
import { ReconciliationSchedule } from '../src/features/reconciliation/reconciliation-schedule';
import { type RunningService, start } from '../src/main';
import { type IdentityPeer, startIdentity } from './deposits-support';
import { publishedDefault } from './fees-support';
import { internalToken, type LedgerBackedHarness, metricValue, startLedgerBackedHarness, tenantToken, type WalletRef } from './support';

/**
 * The scheduled all-tenant run, for real: payments with a short round, the ledger beside it,
 * identity for the tenants' providers. Corruptions are written straight into the ledger's database.
 */
const INTERVAL_MS = 400;
let harness: LedgerBackedHarness;
let identity: IdentityPeer;

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness(
    {
      IDENTITY_URL: identity.url,
      PAYMENTS_TENANT_WAIT_MS: '1000',
      PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000',
      PAYMENTS_RECONCILIATION_INTERVAL_MS: String(INTERVAL_MS),
    },
    { treasury: true },
  );
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

interface Tenant {
  tenantId: string;
  secret: string;
}

async function newTenant(): Promise<Tenant> {
  const config = { allowedCurrencies: ['USD'], maxTransactionAmount: '100000' };
  const tenantId = await identity.createTenant(config);
  await harness.publishTenant(tenantId, config);
  const provider = await identity.createProvider(tenantId, 'mtn');
  await publishedDefault(harness, tenantId, [{ transactionType: 'transfer', currencyCode: 'USD', flatFee: '1.00' }], 2000);
  return { tenantId, secret: provider.webhookSecret };
}

const token = (tenant: Tenant) => tenantToken(tenant.tenantId, { scopes: ['tenant:manage'] });

async function createWallet(tenant: Tenant): Promise<WalletRef> {
  const created = await harness.request('POST', '/v1/wallets', {
    token: token(tenant),
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

async function momoDeposit(tenant: Tenant, wallet: WalletRef, amount: string): Promise<void> {
  const transactionId = `mtn-${randomUUID()}`;
  const phoneNumber = '+256700000001';
  const timestamp = new Date().toISOString();
  const signature = momoWebhookSignature(tenant.secret, {
    transactionId,
    walletId: wallet.id,
    amountText: amount,
    currencyCode: 'USD',
    phoneNumber,
    timestamp,
  });
  const rawBody = `{"transactionId":"${transactionId}","phoneNumber":"${phoneNumber}","amount":${amount},"currencyCode":"USD","walletId":"${wallet.id}","signature":"${signature}","timestamp":"${timestamp}"}`;
  const delivered = await harness.request('POST', '/v1/deposits/momo-webhook', {
    token: internalToken({ surface: 'public', authMode: 'none' }),
    rawBody,
  });
  expect(delivered.status).toBe(201);
  await waitFor(
    async () =>
      depositSchema.parse((await harness.request('GET', `/v1/deposits/${delivered.body.id}`, { token: token(tenant) })).body).journalEntryId
        ? true
        : undefined,
    { what: 'the deposit entry' },
  );
}

async function transfer(tenant: Tenant, from: WalletRef, to: WalletRef, amount: string) {
  const sent = await harness.request('POST', '/v1/transfers', {
    token: token(tenant),
    headers: { 'Idempotency-Key': `idem-${randomUUID()}` },
    body: { fromWalletId: from.id, toWalletId: to.id, amount, currencyCode: 'USD' },
  });
  expect(sent.status).toBe(201);
  return transferSchema.parse(sent.body);
}

async function listRuns(query = ''): Promise<{ data: ReconciliationRunSummary[]; nextCursor: string | null }> {
  const answer = await harness.request('GET', `/v1/system/reconciliation/runs${query}`);
  expect(answer.status).toBe(200);
  return reconciliationRunPageSchema.parse(answer.body);
}

/** The first run of a round that started after `after`: the state the test set up is what it saw. */
async function runAfter(after: Date): Promise<ReconciliationRunSummary> {
  return waitFor(async () => (await listRuns('?limit=5')).data.find((run) => Date.parse(run.startedAt) > after.getTime()), {
    what: `a run started after ${after.toISOString()}`,
    timeoutMs: 15_000,
  });
}

const metric = (name: string, labels: Record<string, string> = {}) => metricValue(harness.service.port, name, labels);

describe('the scheduled reconciliation run', () => {
  let alice: WalletRef;

  beforeAll(async () => {
    const tenant = await newTenant();
    alice = await createWallet(tenant);
    const bob = await createWallet(tenant);
    await momoDeposit(tenant, alice, '300.00');
    const sent = await transfer(tenant, alice, bob, '100.00');
    await waitFor(
      async () =>
        transferSchema.parse((await harness.request('GET', `/v1/transfers/${sent.id}`, { token: token(tenant) })).body).status ===
        'completed'
          ? true
          : undefined,
      { what: 'the transfer' },
    );
  });

  it('records an ok run after real deposits and transfers, readable as a page and one by one', async () => {
    const run = await runAfter(new Date());
    expect(run).toMatchObject({
      status: 'ok',
      error: null,
      mismatches: { balances: 0, entries_balance: 0, business_records: 0, bank_evidence: 0 },
    });
    expect(Date.parse(run.roundAt) % INTERVAL_MS).toBe(0);
    expect(Date.parse(run.finishedAt)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));

    const one = await harness.request('GET', `/v1/system/reconciliation/runs/${run.id}`);
    expect(one.status).toBe(200);
    const detail = reconciliationRunSchema.parse(one.body);
    expect(detail.result?.status).toBe('ok');
    expect(detail.result?.checks.map((check) => `${check.name} ${check.status}`)).toEqual([
      'balances ok',
      'entries_balance ok',
      'business_records ok',
      'bank_evidence ok',
    ]);

    expect(await metric('reconciliation_last_run_ok')).toBe(1);
    expect(await metric('reconciliation_mismatches', { check: 'balances' })).toBe(0);
    expect(await metric('reconciliation_last_run_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(await metric('reconciliation_runs_total', { status: 'ok' })).toBeGreaterThan(0);
  });

  it('pages newest first and answers 404 RECONCILIATION_RUN_NOT_FOUND for an unknown run', async () => {
    await waitFor(async () => ((await listRuns()).data.length >= 3 ? true : undefined), { what: 'three runs' });
    const first = await listRuns('?limit=1');
    expect(first.data).toHaveLength(1);
    expect(first.nextCursor).not.toBeNull();
    const second = await listRuns(`?limit=1&cursor=${first.nextCursor}`);
    expect(second.data).toHaveLength(1);
    expect(second.data[0]!.id < first.data[0]!.id).toBe(true);
    expect(Date.parse(second.data[0]!.startedAt)).toBeLessThanOrEqual(Date.parse(first.data[0]!.startedAt));

    const missing = await harness.request('GET', '/v1/system/reconciliation/runs/rcr_00000000000000000000000000');
    expect(`${missing.status} ${missing.body?.error?.code}`).toBe('404 RECONCILIATION_RUN_NOT_FOUND');
    const badCursor = await harness.request('GET', '/v1/system/reconciliation/runs?cursor=not-a-cursor');
    expect(`${badCursor.status} ${badCursor.body?.error?.code}`).toBe('400 INVALID_CURSOR');
  });

  it('records a mismatch once an account balance was changed in the ledger, and says so on /metrics', async () => {
    const account = await harness.ledger.db('accounts').where({ wallet_id: alice.id }).first('id', 'balance');
    await harness.ledger
      .db('accounts')
      .where({ id: account.id })
      .update({ balance: harness.ledger.db.raw('balance + 1') });
    try {
      const run = await runAfter(new Date());
      expect(run.status).toBe('mismatch');
      expect(run.mismatches).toEqual({ balances: 1, entries_balance: 0, business_records: 0, bank_evidence: 0 });
      const detail = reconciliationRunSchema.parse((await harness.request('GET', `/v1/system/reconciliation/runs/${run.id}`)).body);
      expect(JSON.stringify(detail.result?.checks.find((check) => check.name === 'balances'))).toContain(account.id);

      expect(await metric('reconciliation_mismatches', { check: 'balances' })).toBeGreaterThan(0);
      expect(await metric('reconciliation_mismatches', { check: 'entries_balance' })).toBe(0);
      expect(await metric('reconciliation_last_run_ok')).toBe(0);
      expect(await metric('reconciliation_runs_total', { status: 'mismatch' })).toBeGreaterThan(0);
    } finally {
      await harness.ledger.db('accounts').where({ id: account.id }).update({ balance: account.balance });
    }
    expect((await runAfter(new Date())).status).toBe('ok');
  });

  it('records an error, never ok, while the ledger cannot be reached', async () => {
    await harness.ledger.stop();
    let failed: ReconciliationRunSummary;
    try {
      failed = await runAfter(new Date());
      expect(failed).toMatchObject({ status: 'error', mismatches: null });
      expect(failed.error).toEqual(expect.any(String));
      expect(failed.error!.length).toBeGreaterThan(0);
      expect(await metric('reconciliation_last_run_ok')).toBe(0);
      expect(await metric('reconciliation_runs_total', { status: 'error' })).toBeGreaterThan(0);
      // The per-check gauges stay those of the last run whose checks all ran.
      expect(await metric('reconciliation_mismatches', { check: 'balances' })).toBe(0);
    } finally {
      await harness.ledger.restart();
    }
    const detail = reconciliationRunSchema.parse((await harness.request('GET', `/v1/system/reconciliation/runs/${failed.id}`)).body);
    expect(detail).toMatchObject({ status: 'error', result: null });
    expect((await runAfter(new Date())).status).toBe('ok');
  });

  it('never records two runs of one round with two payments instances on the same database', async () => {
    const second: RunningService = await start({ ...harness.env, PAYMENTS_RECONCILIATION_INTERVAL_MS: String(INTERVAL_MS) });
    const since = new Date();
    try {
      await waitFor(
        async () => ((await harness.db('reconciliation_runs').where('started_at', '>', since)).length >= 6 ? true : undefined),
        { what: 'six rounds with both instances', timeoutMs: 20_000 },
      );
    } finally {
      await second.close();
    }
    const doubled = await harness
      .db('reconciliation_runs')
      .select('round_at')
      .count('* as runs')
      .groupBy('round_at')
      .havingRaw('count(*) > 1');
    expect(doubled).toEqual([]);
  });

  it('keeps the runs to the system surface', async () => {
    const asTenant = await harness.request('GET', '/v1/system/reconciliation/runs', {
      token: tenantToken('tn_SOMEONE', { scopes: ['tenant:manage', 'analytics:read'] }),
    });
    expect(`${asTenant.status} ${asTenant.body?.error?.code}`).toBe('403 INSUFFICIENT_SCOPE');
  });
});

describe('a round taken by two schedules at once', () => {
  const silent: Logger = pino({ level: 'silent' });
  const dbs: Db[] = [];

  afterAll(async () => {
    for (const db of dbs) await db.destroy();
  });

  function schedule(run: () => Promise<ReconciliationResult>): ReconciliationSchedule {
    // Each its own pool, as two payments instances would have.
    const db = createDb(harness.databaseUrl, { poolMax: 3 });
    dbs.push(db);
    return new ReconciliationSchedule({ db, logger: silent, metrics: createMetrics('payments'), intervalMs: 0, run });
  }

  it('runs and records it once: the other finds the lock taken, and a later one finds it recorded', async () => {
    let runs = 0;
    const slowOk = async (): Promise<ReconciliationResult> => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { status: 'ok', checks: [], checkedAt: new Date().toISOString() };
    };
    const roundAt = new Date(Date.UTC(2001, 0, 1));
    const [one, two] = await Promise.all([schedule(slowOk).runRound(roundAt), schedule(slowOk).runRound(roundAt)]);
    expect([one, two].filter((recorded) => recorded !== null)).toHaveLength(1);
    expect(await schedule(slowOk).runRound(roundAt)).toBeNull();
    expect(runs).toBe(1);
    expect(await harness.db('reconciliation_runs').where({ round_at: roundAt }).select('status')).toEqual([{ status: 'ok' }]);
  });
});
