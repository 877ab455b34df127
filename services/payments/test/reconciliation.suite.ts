import { randomUUID } from 'node:crypto';
import {
  depositSchema,
  floatDepositSchema,
  momoWebhookSignature,
  type ReconciliationFullRun,
  reconciliationFullRunSchema,
  reconciliationResultSchema,
  type ReconciliationResult,
  transferSchema,
  walletSchema,
} from '@wallet/contracts';
import { createLogger } from '@wallet/kit';
import { LedgerReads, postingsDigest } from '@wallet/money-commands';
import { waitFor } from '@wallet/kit/testing';
import BigNumber from 'bignumber.js';
import { depositSource } from '../src/features/deposits/deposit-source';
import { transferSource } from '../src/features/transfers/transfer-records';
import { type IdentityPeer, startIdentity } from './deposits-support';
import { publishedDefault } from './fees-support';
import {
  depositCommand,
  type HttpResult,
  internalToken,
  type LedgerBackedHarness,
  metricValue,
  startLedgerBackedHarness,
  tenantToken,
  type WalletRef,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments over HTTP, the ledger beside it (its checks and journal
 * read over HTTP), and identity serving the tenants' mobile money providers. Corruptions are
 * written straight into the owning service's database, as a bug or an operator would.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness(
    {
      IDENTITY_URL: identity.url,
      PAYMENTS_TENANT_WAIT_MS: '1000',
      PAYMENTS_DEPOSIT_REPLY_WAIT_MS: '3000',
      PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000',
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

/** A tenant with a mobile money provider and a default schedule charging deposits and transfers, with a platform commission. */
async function newTenant(): Promise<Tenant> {
  const config = { allowedCurrencies: ['USD'], maxTransactionAmount: '100000' };
  const tenantId = await identity.createTenant(config);
  await harness.publishTenant(tenantId, config);
  const provider = await identity.createProvider(tenantId, 'mtn');
  await publishedDefault(
    harness,
    tenantId,
    [
      { transactionType: 'deposit', currencyCode: 'USD', flatFee: '0.50' },
      { transactionType: 'transfer', currencyCode: 'USD', flatFee: '1.00', percentageFee: '1.5' },
    ],
    2000,
  );
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

/** The deposit once payments recorded the ledger's entry for it. */
async function withEntry(tenant: Tenant, depositId: string) {
  return waitFor(
    async () => {
      const deposit = depositSchema.parse((await harness.request('GET', `/v1/deposits/${depositId}`, { token: token(tenant) })).body);
      return deposit.journalEntryId ? deposit : undefined;
    },
    { what: `the journal entry of ${depositId}` },
  );
}

async function momoDeposit(tenant: Tenant, wallet: WalletRef, amount: string) {
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
  return withEntry(tenant, delivered.body.id as string);
}

async function submitSlip(tenant: Tenant, wallet: WalletRef, amount: string, slipReference: string) {
  const slip = await harness.request('POST', '/v1/deposits/bank-slips', {
    token: token(tenant),
    body: { walletId: wallet.id, amount, currencyCode: 'USD', bankCode: 'stanbic', slipReference },
  });
  expect(slip.status).toBe(201);
  return depositSchema.parse(slip.body);
}

async function importStatement(tenant: Tenant, lines: Array<{ reference: string; amount: string }>): Promise<void> {
  const imported = await harness.request('POST', '/v1/bank-statements', {
    token: token(tenant),
    body: { bankCode: 'stanbic', currencyCode: 'USD', lines: lines.map((line) => ({ date: '2026-11-20', ...line })) },
  });
  expect(imported.status).toBe(201);
}

async function bankDeposit(tenant: Tenant, wallet: WalletRef, amount: string) {
  const reference = `SLIP-${randomUUID().slice(0, 8)}`;
  const slip = await submitSlip(tenant, wallet, amount, reference);
  await importStatement(tenant, [{ reference, amount }]);
  // The verifier is a member whose role grants deposits:verify.
  const operator = await identity.addMember(tenant.tenantId, 'operator');
  const verified = await harness.request('POST', `/v1/deposits/${slip.id}/verify`, { token: token(tenant), body: { actorId: operator } });
  expect(verified.body).toMatchObject({ status: 'completed' });
  return withEntry(tenant, slip.id);
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

/** A tenant whose money moved every way payments knows: a webhook deposit, a verified bank slip and a transfer with a fee. */
async function busyTenant() {
  const tenant = await newTenant();
  const alice = await createWallet(tenant);
  const bob = await createWallet(tenant);
  const momo = await momoDeposit(tenant, alice, '500.00');
  const bank = await bankDeposit(tenant, bob, '200.00');
  const sent = await transfer(tenant, alice, bob, '100.00');
  expect(sent.fee).toBe('2.50');
  return { tenant, alice, bob, momo, bank, sent };
}

function tenantReconciliation(tenant: Tenant, scopes = ['analytics:read']): Promise<HttpResult> {
  return harness.request('GET', '/v1/admin/reconciliation', { token: tenantToken(tenant.tenantId, { scopes }) });
}

async function reconcile(tenant: Tenant | null): Promise<ReconciliationResult> {
  const answer = tenant ? await tenantReconciliation(tenant) : await harness.request('GET', '/v1/system/reconciliation');
  expect(answer.status).toBe(200);
  return reconciliationResultSchema.parse(answer.body);
}

function check(result: ReconciliationResult, name: string) {
  const found = result.checks.find((each) => each.name === name);
  if (!found) throw new Error(`no check ${name} in ${JSON.stringify(result)}`);
  return found;
}

function mentions(result: ReconciliationResult, id: string): boolean {
  return JSON.stringify(result).includes(id);
}

describe('GET /v1/admin/reconciliation and /v1/system/reconciliation', () => {
  let clean: Awaited<ReturnType<typeof busyTenant>>;

  beforeAll(async () => {
    clean = await busyTenant();
  });

  it('is ok after real webhook and bank slip deposits and a fee-bearing transfer, with all four checks', async () => {
    const result = await reconcile(clean.tenant);
    expect(result).toMatchObject({ status: 'ok' });
    expect(result.checks.map((each) => `${each.name} ${each.status} ${each.mismatches.length}`)).toEqual([
      'balances ok 0',
      'entries_balance ok 0',
      'business_records ok 0',
      'bank_evidence ok 0',
    ]);
    expect(Date.parse(result.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await reconcile(null)).status).toBe('ok');
  });

  it('names the transfer whose journal line amount was changed in the ledger, for its tenant and the platform only', async () => {
    const { tenant, sent } = await busyTenant();
    const line = await harness.ledger
      .db('journal_lines')
      .where({ entry_seq: harness.ledger.db('journal_entries').where({ id: sent.journalEntryId }).select('seq') })
      .orderBy('line_no')
      .first();
    await harness.ledger.db('journal_lines').where({ entry_seq: line.entry_seq, line_no: line.line_no }).update({ amount: '100.01' });

    const result = await reconcile(tenant);
    expect(result.status).toBe('mismatch');
    const records = check(result, 'business_records');
    expect(records.status).toBe('mismatch');
    expect(records.mismatches).toEqual([
      expect.objectContaining({
        referenceType: 'transfer',
        recordId: sent.id,
        journalEntryId: sent.journalEntryId,
        problem: 'journal_entry_differs',
        differences: ['lines_differ'],
        missingLines: [expect.stringMatching(/^DR wallet:.* 100\.00 USD$/)],
        unexpectedLines: [expect.stringMatching(/^DR wallet:.* 100\.01 USD$/)],
      }),
    ]);
    // The same change unbalances the entry and the sender's account, which the ledger's checks see.
    expect(check(result, 'entries_balance').status).toBe('mismatch');
    expect(check(result, 'balances').status).toBe('mismatch');

    const other = await reconcile(clean.tenant);
    expect(other.status).toBe('ok');
    expect(mentions(other, sent.id)).toBe(false);
    expect(check(await reconcile(null), 'business_records').mismatches).toEqual(
      expect.arrayContaining([expect.objectContaining({ recordId: sent.id, tenantId: tenant.tenantId, problem: 'journal_entry_differs' })]),
    );
  });

  it("names the account whose materialized balance was changed in the ledger's database, on both surfaces", async () => {
    const { tenant, bob } = await busyTenant();
    const account = await harness.ledger.db('accounts').where({ tenant_id: tenant.tenantId, wallet_id: bob.id }).first();
    await harness.ledger
      .db('accounts')
      .where({ id: account.id })
      .update({ balance: harness.ledger.db.raw('balance + 1') });

    const result = await reconcile(tenant);
    expect(result.status).toBe('mismatch');
    expect(result.checks.map((each) => `${each.name} ${each.status}`)).toEqual([
      'balances mismatch',
      'entries_balance ok',
      'business_records ok',
      'bank_evidence ok',
    ]);
    expect(check(result, 'balances').mismatches).toEqual([expect.objectContaining({ accountId: account.id, accountName: account.name })]);
    expect(check(await reconcile(null), 'balances').mismatches).toEqual(
      expect.arrayContaining([expect.objectContaining({ accountId: account.id })]),
    );
    expect((await reconcile(clean.tenant)).status).toBe('ok');
    await harness.ledger
      .db('accounts')
      .where({ id: account.id })
      .update({ balance: harness.ledger.db.raw('balance - 1') });
  });

  it('names a completed transfer whose journal entry id was re-pointed in payments, both ways', async () => {
    const { tenant, sent } = await busyTenant();
    await harness.db('transfers').where({ id: sent.id }).update({ journal_entry_id: 'je_NOT_THE_ONE' });

    const records = check(await reconcile(tenant), 'business_records');
    expect(records.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          referenceType: 'transfer',
          recordId: sent.id,
          journalEntryId: 'je_NOT_THE_ONE',
          problem: 'journal_entry_not_found',
        }),
        expect.objectContaining({
          referenceType: 'transfer',
          recordId: sent.id,
          journalEntryId: sent.journalEntryId,
          problem: 'record_names_another_entry',
          recordJournalEntryIds: ['je_NOT_THE_ONE'],
        }),
      ]),
    );
    expect(records.mismatches).toHaveLength(2);
    expect((await reconcile(clean.tenant)).status).toBe('ok');
  });

  it('names a ledger entry that points at a deposit payments never had', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant);
    const command = depositCommand(wallet, '10.00');
    const posted = await harness.ledger.commands.request(command);
    expect(posted.status).toBe('posted');

    const result = await reconcile(tenant);
    // The entry itself balances: only the business record check can see it.
    expect(result.checks.map((each) => `${each.name} ${each.status}`)).toEqual([
      'balances ok',
      'entries_balance ok',
      'business_records mismatch',
      'bank_evidence ok',
    ]);
    expect(check(result, 'business_records').mismatches).toEqual([
      {
        referenceType: 'deposit',
        recordId: command.reference.id,
        tenantId: tenant.tenantId,
        environment: 'live',
        journalEntryId: posted.journalEntryId,
        problem: 'record_not_found',
      },
    ]);
    expect(mentions(await reconcile(clean.tenant), command.reference.id)).toBe(false);
    expect(mentions(await reconcile(null), command.reference.id)).toBe(true);
  });

  it("covers treasury's float deposits: names one whose record no longer matches its entry, and an entry naming one treasury never had", async () => {
    const tenant = await newTenant();
    await createWallet(tenant);
    const treasury = harness.treasury;
    if (!treasury) throw new Error('this file starts treasury beside payments');
    const floatDeposit = async (amount: string) => {
      const response = await fetch(`${treasury.url}/v1/admin/money/float-deposits`, {
        method: 'POST',
        headers: { 'x-internal-token': token(tenant), 'content-type': 'application/json', 'idempotency-key': `idem-${randomUUID()}` },
        body: JSON.stringify({ amount, currencyCode: 'USD', rail: 'bank' }),
      });
      expect(response.status).toBe(201);
      return floatDepositSchema.parse(await response.json());
    };
    const changed = await floatDeposit('300.00');
    const vanished = await floatDeposit('40.00');

    // A record changed in treasury no longer matches what the ledger posted for it; a record
    // deleted there leaves an entry naming nothing. The journal itself still balances. Both are
    // recent (after treasury's marks): a check asked now finds them (an old one, a full run).
    await treasury.db('float_deposits').where({ id: changed.id }).update({ amount: '300.10' });
    await treasury.db('float_deposits').where({ id: vanished.id }).delete();
    const result = await reconcile(tenant);
    expect(result.checks.map((each) => `${each.name} ${each.status}`)).toEqual([
      'balances ok',
      'entries_balance ok',
      'business_records mismatch',
      'bank_evidence ok',
    ]);
    expect(check(result, 'business_records').mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          referenceType: 'float_deposit',
          recordId: changed.id,
          journalEntryId: changed.journalEntryId,
          problem: 'journal_entry_differs',
        }),
        expect.objectContaining({
          referenceType: 'float_deposit',
          recordId: vanished.id,
          journalEntryId: vanished.journalEntryId,
          problem: 'record_not_found',
        }),
      ]),
    );
    expect(check(result, 'business_records').mismatches).toHaveLength(2);
    expect(mentions(await reconcile(clean.tenant), changed.id)).toBe(false);
    expect(mentions(await reconcile(null), vanished.id)).toBe(true);
  });

  it('lists unused statement lines and bank slips pending longer than the configured age as bank evidence', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant);
    await importStatement(tenant, [{ reference: 'NOBODY-CLAIMED-IT', amount: '75.25' }]);
    const old = await submitSlip(tenant, wallet, '40.00', 'OLD-SLIP');
    const recent = await submitSlip(tenant, wallet, '41.00', 'RECENT-SLIP');
    // Submitted 73 hours ago: one hour past the default of 72.
    await harness
      .db('deposits')
      .where({ id: old.id })
      .update({ created_at: harness.db.raw("now() - interval '73 hours'") });

    const result = await reconcile(tenant);
    expect(result.status).toBe('mismatch');
    const evidence = check(result, 'bank_evidence');
    expect(evidence.mismatches).toEqual([
      expect.objectContaining({
        problem: 'unmatched_statement_line',
        tenantId: tenant.tenantId,
        bankCode: 'stanbic',
        currencyCode: 'USD',
        reference: 'NOBODY-CLAIMED-IT',
        amount: '75.25',
        date: '2026-11-20',
      }),
      expect.objectContaining({
        problem: 'pending_slip_too_old',
        depositId: old.id,
        slipReference: 'OLD-SLIP',
        amount: '40.00',
        maxAgeHours: 72,
      }),
    ]);
    expect(mentions(result, recent.id)).toBe(false);
    expect(check(result, 'business_records').status).toBe('ok');
    expect(mentions(await reconcile(clean.tenant), old.id)).toBe(false);
    expect(check(await reconcile(null), 'bank_evidence').mismatches).toEqual(
      expect.arrayContaining([expect.objectContaining({ depositId: old.id })]),
    );
  });

  it('answers 503 SERVICE_UNAVAILABLE, never a guessed result, while the ledger cannot be reached', async () => {
    await harness.ledger.stop();
    try {
      for (const answer of [await tenantReconciliation(clean.tenant), await harness.request('GET', '/v1/system/reconciliation')]) {
        expect(`${answer.status} ${answer.body?.error?.code}`).toBe('503 SERVICE_UNAVAILABLE');
      }
    } finally {
      await harness.ledger.restart();
    }
    expect((await reconcile(clean.tenant)).status).toBe('ok');
  });

  it('keeps each surface to its own callers', async () => {
    const asTenant = await harness.request('GET', '/v1/system/reconciliation', {
      token: tenantToken(clean.tenant.tenantId, { scopes: ['tenant:manage'] }),
    });
    expect(`${asTenant.status} ${asTenant.body?.error?.code}`).toBe('403 INSUFFICIENT_SCOPE');
    const asSystem = await harness.request('GET', '/v1/admin/reconciliation');
    expect(`${asSystem.status} ${asSystem.body?.error?.code}`).toBe('403 INSUFFICIENT_SCOPE');
  });
});

describe('checks from where the last run left off, and full runs from zero', () => {
  /**
   * Runs until one reads nothing new: the marks then stand past everything so far (a mark moves to
   * what a run saw once every transaction running then, in any database of the cluster, has ended).
   */
  async function settle(tenant: Tenant): Promise<void> {
    await waitFor(
      async () => {
        const result = await reconcile(tenant);
        expect(result.status).toBe('ok');
        const read =
          (result.coverage?.journal?.entries ?? 0) +
          (result.coverage?.records ?? []).reduce((total, each) => total + each.records + each.entries, 0);
        return read === 0 ? true : undefined;
      },
      { what: 'a run that reads nothing new', intervalMs: 100 },
    );
  }

  async function fullRun(tenant: Tenant | null): Promise<ReconciliationFullRun> {
    const path = tenant ? '/v1/admin/reconciliation/runs' : '/v1/system/reconciliation/runs';
    const token = tenant ? tenantToken(tenant.tenantId, { scopes: ['tenant:manage'] }) : undefined;
    const started = await harness.request('POST', path, token ? { token } : {});
    expect(started.status).toBe(202);
    const run = reconciliationFullRunSchema.parse(started.body);
    expect(run).toMatchObject({ kind: 'full', state: 'queued', result: null, tenantId: tenant?.tenantId ?? null });
    return waitFor(
      async () => {
        const answer = await harness.request('GET', `${path}/${run.id}`, token ? { token } : {});
        expect(answer.status).toBe(200);
        const seen = reconciliationFullRunSchema.parse(answer.body);
        return seen.state === 'succeeded' || seen.state === 'failed' ? seen : undefined;
      },
      { what: `full run ${run.id}`, timeoutMs: 30_000 },
    );
  }

  it('says what it covered: the records and entries after the marks', async () => {
    const { tenant, alice, bob } = await busyTenant();
    const first = await reconcile(tenant);
    const covered = (result: ReconciliationResult, type: string) => result.coverage?.records?.find((each) => each.referenceType === type);
    expect(first.coverage).toMatchObject({ mode: 'incremental', journal: { afterSeq: '0' } });
    expect(covered(first, 'deposit')).toMatchObject({ afterRecordSeq: '0', records: 2, afterEntrySeq: '0', entries: 2 });
    expect(covered(first, 'transfer')).toMatchObject({ records: 1, entries: 1 });
    expect(first.coverage?.records?.map((each) => each.referenceType).sort()).toEqual([
      'deposit',
      'float_deposit',
      'payout_case',
      'transfer',
      'transfer_reversal',
      'withdrawal',
    ]);
    await settle(tenant);

    await transfer(tenant, bob, alice, '3.00');
    const after = await reconcile(tenant);
    expect(after.status).toBe('ok');
    expect(covered(after, 'transfer')).toMatchObject({ records: 1, entries: 1 });
    expect(covered(after, 'deposit')).toMatchObject({ records: 0, entries: 0 });
    expect(after.coverage?.journal).toMatchObject({ entries: 1 });

    // A type with no new entries still moves its mark past the others' (the next check does not look through them again).
    await settle(tenant);
    const posted: { seq: string } = await harness.ledger
      .db('journal_entries')
      .where({ reference_type: 'transfer', tenant_id: tenant.tenantId })
      .orderBy('seq', 'desc')
      .first(harness.ledger.db.raw('seq::text AS seq'));
    const marks: Array<{ reference_type: string; entry_verified_seq: string }> = await harness
      .db('reconciliation_marks')
      .where({ tenant_id: tenant.tenantId })
      .select('reference_type', harness.db.raw('entry_verified_seq::text AS entry_verified_seq'));
    for (const type of ['deposit', 'payout_case'])
      expect([type, BigInt(marks.find((mark) => mark.reference_type === type)?.entry_verified_seq ?? '0') >= BigInt(posted.seq)]).toEqual([
        type,
        true,
      ]);
  });

  it('finds a recent record without its entry, and a corrupted recent balance, in the next check', async () => {
    const { tenant, alice, bob } = await busyTenant();
    await settle(tenant);
    const sent = await transfer(tenant, alice, bob, '7.00');
    // Payments names an entry the ledger does not have.
    await harness.db('transfers').where({ id: sent.id }).update({ journal_entry_id: 'je_NEVER_POSTED' });
    const account = await harness.ledger.db('accounts').where({ tenant_id: tenant.tenantId, wallet_id: bob.id }).first('id', 'balance');
    await harness.ledger
      .db('accounts')
      .where({ id: account.id })
      .update({ balance: harness.ledger.db.raw('balance + 5') });

    const result = await reconcile(tenant);
    expect(result.checks.map((each) => `${each.name} ${each.status}`)).toEqual([
      'balances mismatch',
      'entries_balance ok',
      'business_records mismatch',
      'bank_evidence ok',
    ]);
    expect(check(result, 'balances').mismatches).toEqual([expect.objectContaining({ accountId: account.id })]);
    expect(check(result, 'business_records').mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          referenceType: 'transfer',
          recordId: sent.id,
          journalEntryId: 'je_NEVER_POSTED',
          problem: 'journal_entry_not_found',
        }),
        expect.objectContaining({
          referenceType: 'transfer',
          recordId: sent.id,
          journalEntryId: sent.journalEntryId,
          problem: 'record_names_another_entry',
        }),
      ]),
    );
    // Found again until put right: the marks never move past what was found wrong.
    expect((await reconcile(tenant)).status).toBe('mismatch');
    await harness.db('transfers').where({ id: sent.id }).update({ journal_entry_id: sent.journalEntryId });
    await harness.ledger.db('accounts').where({ id: account.id }).update({ balance: account.balance });
    expect((await reconcile(tenant)).status).toBe('ok');
  });

  it('finds an old record changed in place only in a full run, which shows its progress and the same result shape', async () => {
    const { tenant, sent } = await busyTenant();
    await settle(tenant);
    // Behind the marks: a check asked now no longer reads it.
    await harness.db('transfers').where({ id: sent.id }).update({ amount: '100.50' });
    expect((await reconcile(tenant)).status).toBe('ok');

    const run = await fullRun(tenant);
    expect(run).toMatchObject({ state: 'succeeded', status: 'mismatch', error: null });
    expect(run.progress.records).toBeGreaterThan(0);
    expect(run.progress.ledger).toMatchObject({ phase: 'done' });
    const result = reconciliationResultSchema.parse(run.result);
    expect(result.coverage).toMatchObject({ mode: 'full', journal: { afterSeq: '0', entries: 3 } });
    expect(result.checks.map((each) => `${each.name} ${each.status}`)).toEqual([
      'balances ok',
      'entries_balance ok',
      'business_records mismatch',
      'bank_evidence ok',
    ]);
    expect(check(result, 'business_records').mismatches).toEqual([
      expect.objectContaining({ recordId: sent.id, problem: 'journal_entry_differs' }),
    ]);

    // Another tenant cannot follow it; the platform can, and starts its own across every tenant.
    const outsider = await newTenant();
    const other = await harness.request('GET', `/v1/admin/reconciliation/runs/${run.id}`, {
      token: tenantToken(outsider.tenantId, { scopes: ['analytics:read'] }),
    });
    expect(`${other.status} ${other.body?.error?.code}`).toBe('404 RECONCILIATION_RUN_NOT_FOUND');
    expect(reconciliationFullRunSchema.parse((await harness.request('GET', `/v1/system/reconciliation/runs/${run.id}`)).body).id).toBe(
      run.id,
    );
    await harness.db('transfers').where({ id: sent.id }).update({ amount: '100.00' });
    const everything = await fullRun(null);
    expect(everything.state).toBe('succeeded');
    expect(JSON.stringify(everything.result)).not.toContain(sent.id);
  });

  it("moves check 3's marks to where a full run agreed with the ledger: the next check reads only what came after", async () => {
    const { tenant, alice, bob } = await busyTenant();
    expect(await fullRun(tenant)).toMatchObject({ state: 'succeeded', status: 'ok' });
    await transfer(tenant, bob, alice, '2.00');
    const covered = (result: ReconciliationResult, type: string) => result.coverage?.records?.find((each) => each.referenceType === type);
    const after = await reconcile(tenant);
    expect(after.status).toBe('ok');
    expect(covered(after, 'transfer')).toMatchObject({ records: 1, entries: 1 });
    expect(covered(after, 'deposit')).toMatchObject({ records: 0, entries: 0 });
  });

  it('compares a clean history as one digest per scope and record type, and one by one only where something differs', async () => {
    const compared = async (how: string) =>
      (await metricValue(harness.service.port, 'reconciliation_full_record_scopes_total', { reference_type: 'transfer', compared: how })) ??
      0;
    const { tenant, sent } = await busyTenant();
    await settle(tenant);
    const before = { digest: await compared('digest'), oneByOne: await compared('one_by_one') };
    expect(await fullRun(tenant)).toMatchObject({ state: 'succeeded', status: 'ok' });
    expect({ digest: await compared('digest'), oneByOne: await compared('one_by_one') }).toEqual({
      digest: before.digest + 1,
      oneByOne: before.oneByOne,
    });

    await harness.db('transfers').where({ id: sent.id }).update({ fee: '2.51' });
    const run = await fullRun(tenant);
    expect(check(reconciliationResultSchema.parse(run.result), 'business_records').mismatches).toEqual([
      expect.objectContaining({ recordId: sent.id, problem: 'journal_entry_differs' }),
    ]);
    expect(await compared('one_by_one')).toBe(before.oneByOne + 1);
    await harness.db('transfers').where({ id: sent.id }).update({ fee: sent.fee });
  });

  it('finds an old entry whose record is gone only in a full run (the entries naming records outnumber those the records name)', async () => {
    const { tenant, momo } = await busyTenant();
    await settle(tenant);
    await harness.db('deposits').where({ id: momo.id }).delete();
    expect((await reconcile(tenant)).status).toBe('ok');

    const run = await fullRun(tenant);
    expect(run).toMatchObject({ state: 'succeeded', status: 'mismatch' });
    const result = reconciliationResultSchema.parse(run.result);
    expect(check(result, 'business_records').mismatches).toEqual([
      expect.objectContaining({
        referenceType: 'deposit',
        recordId: momo.id,
        journalEntryId: momo.journalEntryId,
        problem: 'record_not_found',
      }),
    ]);
  });

  it("compares records with their entries by a digest that is the ledger's own digest of those entries", async () => {
    const { tenant } = await busyTenant();
    const scope = { tenantId: tenant.tenantId, environment: 'live' as const };
    const journal = new LedgerReads({
      baseUrl: harness.env.LEDGER_URL as string,
      internalTokenSecret: harness.env.INTERNAL_TOKEN_SECRET as string,
      timeoutMs: 5000,
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    const everything = await journal.digestsAfter('0', scope);
    for (const source of [transferSource, depositSource]) {
      const ids = (await harness.db(source.table).where({ tenant_id: tenant.tenantId }).select('id')).map((row: { id: string }) => row.id);
      const postings = (await source.byIds(harness.db, ids)).flatMap((record) =>
        record.postings.map((posting) => ({ scope, posting: { ...posting, journalEntryId: posting.journalEntryId as string } })),
      );
      expect(postings.length).toBeGreaterThan(0);
      const mine = postingsDigest(postings);
      // By id, and as the ledger's digest of every entry naming this type in the scope.
      const answer = await journal.digest({
        ids: postings.map(({ posting }) => posting.journalEntryId),
        named: { referenceType: source.referenceType, ...scope, upToSeq: everything.throughSeq },
      });
      expect(answer).toEqual({ found: mine, named: mine });
      expect(everything.digests.find((each) => each.referenceType === source.referenceType)).toMatchObject(mine);
      // Any field of a line counts: one cent more is another digest.
      const [first, ...rest] = postings;
      if (!first) throw new Error('no posting');
      const [line, ...lines] = first.posting.lines;
      if (!line) throw new Error('no line');
      const changed = {
        ...first,
        posting: { ...first.posting, lines: [{ ...line, amount: new BigNumber(line.amount).plus('0.01').toFixed() }, ...lines] },
      };
      expect(postingsDigest([changed, ...rest]).digest).not.toBe(mine.digest);
    }
  });
});
