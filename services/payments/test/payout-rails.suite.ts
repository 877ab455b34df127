import { randomUUID } from 'node:crypto';
import { formatAmount, journalEntrySchema, payoutCaseSchema, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type RunningService, start as startPayments } from '../src/main';
import { type IdentityPeer, startIdentity } from './deposits-support';
import { publishedDefault } from './fees-support';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  startLedgerBackedHarness,
  tenantToken,
  type WalletRef,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments over HTTP with its delivery worker and the sandbox rail,
 * the ledger beside it and identity for the members who request and approve. An approved case
 * goes to the rail by itself; the tests wait for its outcome and read the ledger's entries.
 */
interface Tenant {
  tenantId: string;
  maker: string;
  checker: string;
}

type Destination = { phoneNumber: string; network: string } | { bankCode: string; accountNumber: string; accountName: string };

function setup(env: NodeJS.ProcessEnv) {
  const state: { harness: LedgerBackedHarness; identity: IdentityPeer } = {} as { harness: LedgerBackedHarness; identity: IdentityPeer };

  beforeAll(async () => {
    state.identity = await startIdentity();
    state.harness = await startLedgerBackedHarness(
      {
        IDENTITY_URL: state.identity.url,
        PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: '3000',
        PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '100',
        PAYMENTS_SANDBOX_RAIL_DELAY_MS: '20',
        // Short: a case whose recording failed (a crash, the ledger away) is delivered again soon.
        PAYMENTS_PAYOUT_RAIL_LEASE_MS: '500',
        ...env,
      },
      { treasury: true },
    );
  });

  afterAll(async () => {
    await state.harness?.close();
    await state.identity?.close();
  });

  async function addMember(tenantId: string, orgRole: string): Promise<string> {
    const response = await fetch(`${state.identity.url}/v1/team`, {
      method: 'POST',
      headers: { 'x-internal-token': tenantToken(tenantId, { scopes: ['tenant:manage'] }), 'content-type': 'application/json' },
      body: JSON.stringify({
        name: orgRole,
        email: `${orgRole}-${randomUUID().slice(0, 8)}@example.com`,
        password: 'correct-horse-battery-9',
        orgRole,
      }),
    });
    const body = (await response.json()) as { id: string };
    if (response.status !== 201) throw new Error(`member not created: ${JSON.stringify(body)}`);
    return body.id;
  }

  /** Payout fee 1.00 + 1 %, a quarter of it the platform's: 50.00 costs 1.50, commission 0.38. */
  async function newTenant(): Promise<Tenant> {
    const tenantId = await state.identity.createTenant({ allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' });
    await state.harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
    await publishedDefault(
      state.harness,
      tenantId,
      [{ transactionType: 'payout', currencyCode: 'USD', flatFee: '1.00', percentageFee: '1' }],
      2500,
    );
    return { tenantId, maker: await addMember(tenantId, 'operator'), checker: await addMember(tenantId, 'approver') };
  }

  function call(tenant: Tenant, method: string, path: string, options: { body?: unknown } = {}): Promise<HttpResult> {
    const headers: Record<string, string> = method === 'POST' ? { 'Idempotency-Key': `idem-${randomUUID()}` } : {};
    return state.harness.request(method, path, {
      token: tenantToken(tenant.tenantId),
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  }

  async function fundedWallet(tenant: Tenant, amount: string): Promise<WalletRef> {
    const created = await call(tenant, 'POST', '/v1/wallets', {
      body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
    });
    expect(created.status).toBe(201);
    const wallet = walletSchema.parse(created.body);
    expect((await state.harness.ledger.commands.request(depositCommand(wallet, amount))).status).toBe('posted');
    return wallet;
  }

  /** Requests a 50.00 payout and approves it; returns the case id. */
  async function approvedPayout(tenant: Tenant, wallet: WalletRef, destination: Destination): Promise<string> {
    const payoutMethod = 'network' in destination ? 'momo' : 'bank';
    const created = await call(tenant, 'POST', '/v1/payouts', {
      body: { walletId: wallet.id, amount: '50.00', currencyCode: 'USD', payoutMethod, destination, requestedBy: tenant.maker },
    });
    expect(created.status).toBe(201);
    const id = payoutCaseSchema.parse(created.body).id;
    const approved = await call(tenant, 'POST', `/v1/payouts/${id}/approve`, { body: { actorId: tenant.checker } });
    // 202 when the ledger has not confirmed the settle within the answer's deadline (a busy machine): wait for it.
    expect([200, 202]).toContain(approved.status);
    if (approved.status === 202) {
      await waitFor(
        async () => {
          const read = payoutCaseSchema.parse((await call(tenant, 'GET', `/v1/payouts/cases/${id}`)).body);
          return read.awaitingLedger ? undefined : read;
        },
        { what: `the settle of ${id}`, timeoutMs: 60_000 },
      );
    }
    return id;
  }

  async function finalCase(tenant: Tenant, id: string) {
    return waitFor(
      async () => {
        const read = payoutCaseSchema.parse((await call(tenant, 'GET', `/v1/payouts/cases/${id}`)).body);
        return read.status === 'completed' || read.status === 'failed' ? read : undefined;
      },
      { what: `the rail outcome of ${id}` },
    );
  }

  /** The case's entries in order, once the outcome's entry is posted, as [kind, lines]. */
  async function entriesOf(tenant: Tenant, id: string, count: number) {
    await waitFor(
      async () =>
        (
          await state.harness.ledger
            .db('journal_entries')
            .where({ reference_type: 'payout_case', reference_id: id })
            .count<Array<{ count: string }>>('* as count')
        )[0]?.count === String(count)
          ? true
          : undefined,
      {
        what: `${count} entries for ${id}`,
      },
    );
    const rows: Array<{ id: string }> = await state.harness.ledger
      .db('journal_entries')
      .where({ reference_type: 'payout_case', reference_id: id })
      .orderBy('seq')
      .select('id');
    const entries = [];
    for (const row of rows) {
      const response = await fetch(`${state.harness.env.LEDGER_URL}/v1/journal/${row.id}`, {
        headers: { 'x-internal-token': tenantToken(tenant.tenantId, { scopes: ['ledger:read'] }) },
      });
      const entry = journalEntrySchema.parse(await response.json());
      entries.push({ kind: entry.kind, lines: entry.lines.map((line) => [line.direction, line.accountName, line.amount]) });
    }
    return entries;
  }

  async function balances(tenant: Tenant, wallet: WalletRef): Promise<Record<string, string>> {
    const rows: Array<{ name: string; balance: string }> = await state.harness.ledger
      .db('accounts')
      .where({ tenant_id: tenant.tenantId, environment: 'live', currency_code: 'USD' })
      .whereNot('name', 'like', 'asset:%')
      .select('name', 'balance');
    return Object.fromEntries(
      rows.map((row) => [row.name === `wallet:${wallet.ownerId}` ? 'wallet' : row.name, formatAmount(row.balance, 'USD')]),
    );
  }

  async function sandboxRecord(id: string): Promise<{ status: string; calls: number } | undefined> {
    return state.harness.db('sandbox_rail_deliveries').where({ case_id: id }).first(['status', 'calls']);
  }

  return { state, call, newTenant, fundedWallet, approvedPayout, finalCase, entriesOf, balances, sandboxRecord };
}

const SETTLE = {
  kind: 'payout_settle',
  lines: [
    ['DR', 'suspense', '51.50'],
    ['CR', 'payout-clearing', '50.00'],
    ['CR', 'revenue:fees', '1.50'],
    ['DR', 'revenue:fees', '0.38'],
    ['CR', 'platform-commission', '0.38'],
  ],
};

function holdOf(wallet: WalletRef) {
  return {
    kind: 'payout_hold',
    lines: [
      ['DR', `wallet:${wallet.ownerId}`, '51.50'],
      ['CR', 'suspense', '51.50'],
    ],
  };
}

function failOf(wallet: WalletRef) {
  return {
    kind: 'payout_fail',
    lines: [
      ['DR', 'payout-clearing', '50.00'],
      ['CR', `wallet:${wallet.ownerId}`, '50.00'],
      ['DR', 'revenue:fees', '1.50'],
      ['CR', `wallet:${wallet.ownerId}`, '1.50'],
      ['DR', 'platform-commission', '0.38'],
      ['CR', 'revenue:fees', '0.38'],
    ],
  };
}

describe('payout delivery through the sandbox rail', () => {
  const t = setup({});

  it('completes a payout the rail paid: payout_complete moves clearing to the network float, and the rail was called once', async () => {
    const tenant = await t.newTenant();
    const wallet = await t.fundedWallet(tenant, '100.00');
    const id = await t.approvedPayout(tenant, wallet, { phoneNumber: '+256700000001', network: 'mtn' });
    expect(await t.finalCase(tenant, id)).toMatchObject({ id, status: 'completed', failureCode: null });
    expect(await t.entriesOf(tenant, id, 3)).toEqual([
      holdOf(wallet),
      SETTLE,
      {
        kind: 'payout_complete',
        lines: [
          ['DR', 'payout-clearing', '50.00'],
          ['CR', 'momo-float:mtn', '50.00'],
        ],
      },
    ]);
    // The float held the 100.00 deposit; the payout took 50.00 of it out.
    expect(await t.balances(tenant, wallet)).toMatchObject({
      wallet: '48.50',
      suspense: '0.00',
      'payout-clearing': '0.00',
      'revenue:fees': '1.12',
      'platform-commission': '0.38',
      'momo-float:mtn': '50.00',
    });
    expect(await t.sandboxRecord(id)).toEqual({ status: 'succeeded', calls: 1 });
    const row = await t.state.harness.db('payout_cases').where({ id }).first(['rail_reference', 'rail_started_at', 'outcome_entry_id']);
    expect(row).toMatchObject({ rail_reference: expect.stringMatching(/^sbx_/), rail_started_at: expect.any(Date) });
    await waitFor(
      async () =>
        (await t.state.harness.db('payout_cases').where({ id }).first(['outcome_entry_id']))?.outcome_entry_id ? true : undefined,
      { what: 'the outcome entry recorded' },
    );
    // The case as the API shows it names the rail's reference and the outcome entry.
    const shown = await t.call(tenant, 'GET', `/v1/payouts/cases/${id}`);
    expect(shown.body).toMatchObject({
      status: 'completed',
      railReference: row.rail_reference,
      railFailureReason: null,
      outcomeJournalEntryId: expect.stringMatching(/^je_/),
    });
  });

  it('credits the bank float for a bank payout', async () => {
    const tenant = await t.newTenant();
    const wallet = await t.fundedWallet(tenant, '100.00');
    const id = await t.approvedPayout(tenant, wallet, { bankCode: 'stanbic', accountNumber: '00123', accountName: 'Acme' });
    expect((await t.finalCase(tenant, id)).status).toBe('completed');
    expect((await t.entriesOf(tenant, id, 3))[2]).toEqual({
      kind: 'payout_complete',
      lines: [
        ['DR', 'payout-clearing', '50.00'],
        ['CR', 'bank-float:stanbic', '50.00'],
      ],
    });
  });

  it('fails a payout to a destination ending in 0000: payout_fail refunds amount plus fee and reverses the fee and commission', async () => {
    const tenant = await t.newTenant();
    const wallet = await t.fundedWallet(tenant, '100.00');
    const id = await t.approvedPayout(tenant, wallet, { phoneNumber: '+256700000000', network: 'mtn' });
    expect((await t.finalCase(tenant, id)).status).toBe('failed');
    expect(await t.entriesOf(tenant, id, 3)).toEqual([holdOf(wallet), SETTLE, failOf(wallet)]);
    expect(await t.balances(tenant, wallet)).toMatchObject({
      wallet: '100.00',
      suspense: '0.00',
      'payout-clearing': '0.00',
      'revenue:fees': '0.00',
      'platform-commission': '0.00',
    });
    expect(await t.sandboxRecord(id)).toEqual({ status: 'failed', calls: 1 });
    const shown = await t.call(tenant, 'GET', `/v1/payouts/cases/${id}`);
    expect(shown.body).toMatchObject({ status: 'failed', railReference: expect.any(String), railFailureReason: expect.any(String) });
  });

  it('reconciles every step of completed and failed payouts, and names the case whose entry was changed', async () => {
    const tenant = await t.newTenant();
    const completed = await t.approvedPayout(tenant, await t.fundedWallet(tenant, '100.00'), {
      phoneNumber: '+256700000001',
      network: 'mtn',
    });
    const failed = await t.approvedPayout(tenant, await t.fundedWallet(tenant, '100.00'), { phoneNumber: '+256700000000', network: 'mtn' });
    for (const id of [completed, failed]) {
      await t.finalCase(tenant, id);
      await t.entriesOf(tenant, id, 3);
      await waitFor(
        async () => {
          const row = await t.state.harness
            .db('payout_cases')
            .where({ id })
            .first(['hold_entry_id', 'decision_entry_id', 'outcome_entry_id']);
          return row?.hold_entry_id && row.decision_entry_id && row.outcome_entry_id ? true : undefined;
        },
        { what: 'every step of the case recorded' },
      );
    }
    const reconcile = async () => {
      const answer = await t.call(tenant, 'GET', '/v1/admin/reconciliation');
      expect(answer.status).toBe(200);
      return answer.body as { status: string; checks: Array<{ name: string; status: string; mismatches: Array<Record<string, unknown>> }> };
    };
    // The wallets were funded by ledger commands sent straight to the ledger (no deposit records):
    // only what concerns payout cases is looked at here.
    const payoutMismatches = (result: Awaited<ReturnType<typeof reconcile>>) =>
      result.checks
        .find((check) => check.name === 'business_records')
        ?.mismatches.filter((mismatch) => mismatch.referenceType === 'payout_case');
    expect(payoutMismatches(await reconcile())).toEqual([]);

    const settle: { id: string } = await t.state.harness.ledger
      .db('journal_entries')
      .where({ reference_type: 'payout_case', reference_id: completed, kind: 'payout_settle' })
      .first('id');
    const settleSeq = t.state.harness.ledger.db('journal_entries').where({ id: settle.id }).select('seq');
    await t.state.harness.ledger
      .db('journal_lines')
      .where({ entry_seq: settleSeq, direction: 'CR' })
      .update({ amount: t.state.harness.ledger.db.raw('amount + 1') });
    // Changed after the check above verified it: only a full run from zero reads it again.
    const started = await t.call(tenant, 'POST', '/v1/admin/reconciliation/runs');
    expect(started.status).toBe(202);
    const run = await waitFor(
      async () => {
        const answer = await t.call(tenant, 'GET', `/v1/admin/reconciliation/runs/${started.body.id as string}`);
        return answer.body.state === 'succeeded' ? answer.body : undefined;
      },
      { what: 'the full run', timeoutMs: 30_000 },
    );
    const changed = run.result as Awaited<ReturnType<typeof reconcile>>;
    expect(changed.status).toBe('mismatch');
    expect(payoutMismatches(changed)).toEqual([
      expect.objectContaining({
        referenceType: 'payout_case',
        recordId: completed,
        journalEntryId: settle.id,
        problem: 'journal_entry_differs',
      }),
    ]);
  });
});

describe('payout delivery interrupted between the rail answer and its recording', () => {
  // The hook stops the worker right after the rail answered, before anything is recorded.
  const t = setup({ PAYMENTS_PAYOUT_RAIL_CRASH_AFTER_DELIVERY: '1' });

  it('resumes after a restart with the same case id: the rail pays once and the outcome is recorded once', async () => {
    const tenant = await t.newTenant();
    const wallet = await t.fundedWallet(tenant, '200.00');
    const paid = await t.approvedPayout(tenant, wallet, { phoneNumber: '+256700000001', network: 'mtn' });
    await waitFor(async () => ((await t.sandboxRecord(paid))?.calls === 1 ? true : undefined), {
      what: 'the rail to answer',
      timeoutMs: 60_000,
    });
    // Give a recording that should not happen the time to happen.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await t.state.harness.db('payout_cases').where({ id: paid }).first(['status', 'rail_reference'])).toEqual({
      status: 'approved',
      rail_reference: null,
    });
    expect(await t.entriesOf(tenant, paid, 2)).toEqual([holdOf(wallet), SETTLE]);

    const refused = await t.approvedPayout(tenant, wallet, { phoneNumber: '+256700000000', network: 'mtn' });
    await t.state.harness.restart({ PAYMENTS_PAYOUT_RAIL_CRASH_AFTER_DELIVERY: '0' });

    expect((await t.finalCase(tenant, paid)).status).toBe('completed');
    expect((await t.finalCase(tenant, refused)).status).toBe('failed');
    expect((await t.entriesOf(tenant, paid, 3))[2]).toEqual({
      kind: 'payout_complete',
      lines: [
        ['DR', 'payout-clearing', '50.00'],
        ['CR', 'momo-float:mtn', '50.00'],
      ],
    });
    expect(await t.entriesOf(tenant, refused, 3)).toEqual([holdOf(wallet), SETTLE, failOf(wallet)]);
    // One delivery each, remembered: the paid case was asked twice (before and after the restart).
    expect(await t.sandboxRecord(paid)).toEqual({ status: 'succeeded', calls: 2 });
    expect((await t.sandboxRecord(refused))?.status).toBe('failed');
    expect(
      await t.state.harness.db('sandbox_rail_deliveries').whereIn('case_id', [paid, refused]).count<Array<{ count: string }>>('* as count'),
    ).toEqual([{ count: '2' }]);
    // 200.00 - 51.50 paid out; the refused payout's 51.50 came back whole.
    expect(await t.balances(tenant, wallet)).toMatchObject({
      wallet: '148.50',
      suspense: '0.00',
      'payout-clearing': '0.00',
      'revenue:fees': '1.12',
      'platform-commission': '0.38',
      'momo-float:mtn': '150.00',
    });
  });

  it('reads a delivered case as awaiting the ledger until its payout_complete posted', async () => {
    // Started as set up: the worker stops once the rail answered, so nothing is recorded before the ledger is away.
    await t.state.harness.restart();
    const tenant = await t.newTenant();
    const wallet = await t.fundedWallet(tenant, '100.00');
    const paid = await t.approvedPayout(tenant, wallet, { phoneNumber: '+256700000001', network: 'mtn' });
    await waitFor(async () => ((await t.sandboxRecord(paid))?.calls === 1 ? true : undefined), {
      what: 'the rail to answer',
      timeoutMs: 60_000,
    });
    await t.state.harness.ledger.stop();
    try {
      await t.state.harness.restart({ PAYMENTS_PAYOUT_RAIL_CRASH_AFTER_DELIVERY: '0' });
      expect(await t.finalCase(tenant, paid)).toMatchObject({ status: 'completed', outcomeJournalEntryId: null, awaitingLedger: true });
    } finally {
      await t.state.harness.ledger.restart();
    }
    const posted = await waitFor(
      async () => {
        const read = payoutCaseSchema.parse((await t.call(tenant, 'GET', `/v1/payouts/cases/${paid}`)).body);
        return read.awaitingLedger ? undefined : read;
      },
      { what: 'the payout_complete to post' },
    );
    expect(posted).toMatchObject({ status: 'completed', outcomeJournalEntryId: expect.stringMatching(/^je_/) });
  });
});

describe('payout delivery with two payments instances', () => {
  const t = setup({ PAYMENTS_PAYOUT_RAIL_LEASE_MS: '60000', PAYMENTS_SANDBOX_RAIL_DELAY_MS: '50' });
  let second: RunningService | undefined;
  beforeAll(async () => {
    second = await startPayments({ ...t.state.harness.env, PAYMENTS_PORT: '0' });
  });
  afterAll(async () => {
    await second?.close();
  });

  it('delivers each approved case through one of them: one rail call and one outcome entry per case', async () => {
    const tenant = await t.newTenant();
    const wallet = await t.fundedWallet(tenant, '1000.00');
    const ids: string[] = [];
    for (let index = 0; index < 8; index += 1) {
      ids.push(await t.approvedPayout(tenant, wallet, { phoneNumber: `+25670000010${index}`, network: 'mtn' }));
    }
    for (const id of ids) expect(await t.finalCase(tenant, id)).toMatchObject({ id, status: 'completed' });
    for (const id of ids) {
      expect(await t.sandboxRecord(id)).toEqual({ status: 'succeeded', calls: 1 });
      expect((await t.entriesOf(tenant, id, 3)).map((entry) => entry.kind)).toEqual(['payout_hold', 'payout_settle', 'payout_complete']);
    }
  });
});
