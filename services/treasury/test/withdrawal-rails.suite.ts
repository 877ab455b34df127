import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import {
  businessRecordsCheckSchema,
  formatAmount,
  journalEntrySchema,
  type Withdrawal,
  type WithdrawalDestination,
  type WithdrawalSource,
} from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { payeeOf, SANDBOX_FAILING_SUFFIX } from '@wallet/money-commands';
import { type RunningService, start } from '../src/main';
import { withdrawalPostCommand } from '../src/features/withdrawals/withdrawal-posting';
import { systemToken, tenantToken } from './support';
import { parseWithdrawal, startWithdrawalsHarness, type WithdrawalsHarness, type WithdrawalTenant } from './withdrawals-support';

/**
 * Real: PostgreSQL, RabbitMQ, treasury over HTTP with its delivery worker and the sandbox rail,
 * the ledger beside it and identity for the members who request and approve, as payments'
 * payout-rails.suite.ts has it for payouts. An approved withdrawal goes to the rail by itself;
 * the tests wait for its outcome and read the ledger's entries and balances.
 */

const PAID = { phoneNumber: '+256700000001', network: 'mtn' } as const;
const REFUSED = { phoneNumber: '+256700000000', network: 'mtn' } as const;
const BANK = { bankCode: 'stanbic', accountNumber: '00123', accountName: 'Acme' } as const;

type Method = 'momo' | 'bank' | 'cash';
const methodOf = (destination: WithdrawalDestination): Method =>
  'network' in destination ? 'momo' : 'bankCode' in destination ? 'bank' : 'cash';

function setup(env: NodeJS.ProcessEnv) {
  const state = {} as { harness: WithdrawalsHarness & { closeAll(): Promise<void> } };

  beforeAll(async () => {
    state.harness = await startWithdrawalsHarness({
      TREASURY_WITHDRAWAL_RAIL_INTERVAL_MS: '100',
      TREASURY_SANDBOX_RAIL_DELAY_MS: '20',
      // Short: a case whose recording failed (a crash, the ledger away) is delivered again soon.
      TREASURY_WITHDRAWAL_RAIL_LEASE_MS: '500',
      ...env,
    });
  });

  afterAll(async () => {
    await state.harness?.closeAll();
  });

  const read = async (tenant: WithdrawalTenant, id: string): Promise<Withdrawal> =>
    parseWithdrawal(await state.harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${id}`));

  /** Requests a withdrawal and approves it, once its settle posted; returns the case id. */
  async function approved(tenant: WithdrawalTenant, source: WithdrawalSource, amount: string, destination: WithdrawalDestination) {
    const created = await state.harness.requestWithdrawal(tenant, { source, amount, payoutMethod: methodOf(destination), destination });
    expect(created.status).toBe(201);
    const { id } = parseWithdrawal(created);
    const decided = await state.harness.request(tenant, 'POST', `/v1/admin/money/withdrawals/${id}/approve`, {
      body: { actorId: tenant.checker },
    });
    // 202 when the ledger has not confirmed the settle within the answer's deadline (a busy machine): wait for it.
    expect([200, 202]).toContain(decided.status);
    if (decided.status === 202)
      await waitFor(async () => ((await read(tenant, id)).awaitingLedger ? undefined : true), { what: `the settle of ${id}` });
    return id;
  }

  /** The case once the rail answered and the ledger posted its outcome. */
  function final(tenant: WithdrawalTenant, id: string): Promise<Withdrawal> {
    return waitFor(
      async () => {
        const shown = await read(tenant, id);
        return (shown.status === 'completed' || shown.status === 'failed') && !shown.awaitingLedger ? shown : undefined;
      },
      { what: `the rail outcome of ${id}`, timeoutMs: 60_000 },
    );
  }

  /** The case's entries in order, once `count` are posted, as kind and lines. */
  async function entriesOf(tenant: WithdrawalTenant, id: string, count: number) {
    const rows: Array<{ id: string }> = await waitFor(
      async () => {
        const found: Array<{ id: string }> = await state.harness
          .ledgerDb('journal_entries')
          .where({ reference_type: 'withdrawal', reference_id: id })
          .orderBy('seq')
          .select('id');
        return found.length === count ? found : undefined;
      },
      { what: `${count} entries for ${id}` },
    );
    const entries = [];
    for (const row of rows) {
      const response = await fetch(`${state.harness.ledgerUrl}/v1/journal/${row.id}`, {
        headers: { 'x-internal-token': tenantToken(tenant, ['ledger:read']) },
      });
      const entry = journalEntrySchema.parse(await response.json());
      entries.push({ kind: entry.kind, lines: entry.lines.map((line) => `${line.direction} ${line.accountName} ${line.amount}`) });
    }
    return entries;
  }

  /** The tenant's USD balances by account name, at the currency's scale. */
  async function balances(tenant: WithdrawalTenant): Promise<Record<string, string>> {
    const rows: Array<{ name: string; balance: string }> = await state.harness
      .ledgerDb('accounts')
      .where({ tenant_id: tenant.tenantId, environment: 'live', currency_code: 'USD' })
      .select('name', 'balance');
    return Object.fromEntries(rows.map((row) => [row.name, formatAmount(row.balance, 'USD')]));
  }

  /** Every account of the tenant whose balance is not what its journal lines add up to, in its normal direction. */
  async function balancesOffTheirLines(tenant: WithdrawalTenant): Promise<string[]> {
    const rows: Array<{ name: string; normal_side: string; balance: string; from_lines: string | null }> = await state.harness
      .ledgerDb('accounts as a')
      .leftJoin('journal_lines as l', 'l.account_num', 'a.num')
      .where({ 'a.tenant_id': tenant.tenantId, 'a.environment': 'live' })
      .groupBy('a.num', 'a.name', 'a.normal_side', 'a.balance')
      .select(
        'a.name',
        'a.normal_side',
        'a.balance',
        state.harness.ledgerDb.raw('sum(CASE WHEN l.direction = a.normal_side THEN l.amount ELSE -l.amount END) AS from_lines'),
      );
    return rows
      .filter((row) => !new BigNumber(row.balance).eq(row.from_lines ?? 0))
      .map((row) => `${row.name} ${row.balance} ${row.from_lines}`);
  }

  async function sandboxRecord(id: string): Promise<{ status: string; calls: number } | undefined> {
    return state.harness.db('sandbox_rail_deliveries').where({ case_id: id }).first(['status', 'calls']);
  }

  return { state, read, approved, final, entriesOf, balances, balancesOffTheirLines, sandboxRecord };
}

describe('withdrawal delivery through the sandbox rail', () => {
  const t = setup({});

  it('completes a fee withdrawal the rail paid: withdrawal_complete moves payout clearing out to the momo rail, and the rail was called once', async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.earnFees(tenant, '100.00');
    const id = await t.approved(tenant, 'tenant_fees', '40.25', PAID);
    const done = await t.final(tenant, id);
    expect(done).toMatchObject({
      status: 'completed',
      failureCode: null,
      railReference: expect.stringMatching(/^sbx_/),
      railFailureReason: null,
      outcomeJournalEntryId: expect.stringMatching(/^je_/),
      awaitingLedger: false,
    });
    expect(await t.entriesOf(tenant, id, 3)).toEqual([
      { kind: 'withdrawal_hold', lines: ['DR revenue:fees 40.25', 'CR suspense 40.25'] },
      { kind: 'withdrawal_settle', lines: ['DR suspense 40.25', 'CR payout-clearing 40.25'] },
      { kind: 'withdrawal_complete', lines: ['DR payout-clearing 40.25', 'CR asset:momo-clearing:USD 40.25'] },
    ]);
    expect(await t.balances(tenant)).toMatchObject({
      'revenue:fees': '59.75',
      suspense: '0.00',
      'payout-clearing': '0.00',
      'asset:momo-clearing:USD': '-40.25',
    });
    expect(await t.balancesOffTheirLines(tenant)).toEqual([]);
    expect(await t.sandboxRecord(id)).toEqual({ status: 'succeeded', calls: 1 });
    const row = await t.state.harness.db('withdrawals').where({ id }).first(['rail_started_at', 'outcome_entry_id']);
    expect(row).toEqual({ rail_started_at: expect.any(Date), outcome_entry_id: done.outcomeJournalEntryId });
  });

  it('completes an operating-float withdrawal: the pool leaves through the bank rail, undoing a float deposit over it', async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.fundFloat(tenant, '500.00');
    const id = await t.approved(tenant, 'operating_float', '200.10', BANK);
    expect((await t.final(tenant, id)).status).toBe('completed');
    expect(await t.entriesOf(tenant, id, 3)).toEqual([
      { kind: 'withdrawal_hold', lines: ['CR asset:pool:USD 200.10', 'DR suspense 200.10'] },
      { kind: 'withdrawal_settle', lines: ['CR suspense 200.10', 'DR payout-clearing 200.10'] },
      { kind: 'withdrawal_complete', lines: ['CR payout-clearing 200.10', 'DR asset:bank-clearing:USD 200.10'] },
    ]);
    // The float deposit credited the bank rail's clearing 500.00; what left through it was 200.10.
    expect(await t.balances(tenant)).toMatchObject({
      'asset:pool:USD': '299.90',
      'asset:bank-clearing:USD': '-299.90',
      suspense: '0.00',
      'payout-clearing': '0.00',
    });
    expect(await t.balancesOffTheirLines(tenant)).toEqual([]);
  });

  it('fails withdrawals to destinations ending in 0000: withdrawal_fail gives each source its amount back exactly', async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.earnFees(tenant, '80.00');
    await t.state.harness.fundFloat(tenant, '300.00');
    const before = await t.balances(tenant);
    const fees = await t.approved(tenant, 'tenant_fees', '80.00', REFUSED);
    const cash = await t.approved(tenant, 'operating_float', '125.55', { recipientName: 'Desk 0000', location: 'Kampala' });
    for (const id of [fees, cash]) {
      expect(await t.final(tenant, id)).toMatchObject({
        status: 'failed',
        failureCode: null,
        railReference: expect.stringMatching(/^sbx_/),
        railFailureReason: 'Sandbox: destinations ending in 0000 are refused',
        outcomeJournalEntryId: expect.stringMatching(/^je_/),
      });
      expect(await t.sandboxRecord(id)).toEqual({ status: 'failed', calls: 1 });
    }
    expect((await t.entriesOf(tenant, fees, 3))[2]).toEqual({
      kind: 'withdrawal_fail',
      lines: ['DR payout-clearing 80.00', 'CR revenue:fees 80.00'],
    });
    expect((await t.entriesOf(tenant, cash, 3))[2]).toEqual({
      kind: 'withdrawal_fail',
      lines: ['CR payout-clearing 125.55', 'DR asset:pool:USD 125.55'],
    });
    // Every balance as it was before the two withdrawals: nothing reached a rail's clearing.
    expect(await t.balances(tenant)).toEqual(before);
    expect(before).toMatchObject({ 'revenue:fees': '80.00', 'asset:pool:USD': '300.00', suspense: '0.00', 'payout-clearing': '0.00' });
    expect(await t.balancesOffTheirLines(tenant)).toEqual([]);
  });

  it('lets out exactly the withdrawals the rail paid and gives back exactly the others, however many are approved at once', async () => {
    const withdrawal = fc.record({
      source: fc.constantFrom<WithdrawalSource>('tenant_fees', 'operating_float'),
      cents: fc.integer({ min: 1, max: 5_000 }),
      destination: fc.constantFrom<WithdrawalDestination>(PAID, REFUSED, BANK, { recipientName: 'Desk 0000' }, { recipientName: 'Desk 1' }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(withdrawal, { minLength: 1, maxLength: 6 }), async (items) => {
        const tenant = await t.state.harness.newTenant();
        await t.state.harness.earnFees(tenant, '300.00');
        await t.state.harness.fundFloat(tenant, '300.00');
        const before = await t.balances(tenant);
        const amountOf = (cents: number) => new BigNumber(cents).shiftedBy(-2).toFixed(2);
        const ids = await Promise.all(items.map((item) => t.approved(tenant, item.source, amountOf(item.cents), item.destination)));
        const outcomes = await Promise.all(ids.map((id) => t.final(tenant, id)));

        const expected = new Map<string, BigNumber>(Object.entries(before).map(([name, balance]) => [name, new BigNumber(balance)]));
        const move = (name: string, by: BigNumber) => expected.set(name, (expected.get(name) ?? new BigNumber(0)).plus(by));
        items.forEach((item, index) => {
          const paid = !payeeOf(item.destination).endsWith(SANDBOX_FAILING_SUFFIX);
          expect(outcomes[index]?.status).toBe(paid ? 'completed' : 'failed');
          if (!paid) return;
          const amount = new BigNumber(item.cents).shiftedBy(-2);
          // Fee revenue (credit normal) goes down and the rail's clearing (debit normal) with it; the pool goes to the rail's clearing.
          move(item.source === 'tenant_fees' ? 'revenue:fees' : 'asset:pool:USD', amount.negated());
          move(`asset:${methodOf(item.destination)}-clearing:USD`, item.source === 'tenant_fees' ? amount.negated() : amount);
        });
        const after = await t.balances(tenant);
        expect(after).toEqual(Object.fromEntries([...expected].map(([name, balance]) => [name, balance.toFixed(2)])));
        expect(await t.balancesOffTheirLines(tenant)).toEqual([]);
        for (const [index, id] of ids.entries()) {
          const kinds = (await t.entriesOf(tenant, id, 3)).map((entry) => entry.kind);
          expect(kinds).toEqual([
            'withdrawal_hold',
            'withdrawal_settle',
            `withdrawal_${outcomes[index]?.status === 'completed' ? 'complete' : 'fail'}`,
          ]);
          expect((await t.sandboxRecord(id))?.calls).toBe(1);
        }
      }),
      { numRuns: 4 },
    );
  });

  it('moves no money twice for a result the ledger gets again: the repeat is a duplicate and the case keeps its one entry', async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.fundFloat(tenant, '100.00');
    const id = await t.approved(tenant, 'operating_float', '60.00', { recipientName: 'Desk 0000' });
    const failed = await t.final(tenant, id);
    const before = await t.balances(tenant);
    const row: { source: WithdrawalSource; payout_method: Method } = await t.state.harness
      .db('withdrawals')
      .where({ id })
      .first(['source', 'payout_method']);
    const again = withdrawalPostCommand(
      {
        id,
        tenantId: tenant.tenantId,
        environment: 'live',
        currencyCode: 'USD',
        amount: '60.00',
        source: row.source,
        payoutMethod: row.payout_method,
      },
      'fail',
    );
    expect(await t.state.harness.commands.request(again)).toMatchObject({
      status: 'posted',
      duplicate: true,
      journalEntryId: failed.outcomeJournalEntryId,
    });
    // The ledger publishes the repeat's result again: treasury's events consumer takes it, and records nothing new.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await t.read(tenant, id)).toEqual(failed);
    expect(await t.balances(tenant)).toEqual(before);
    expect(before).toMatchObject({ 'asset:pool:USD': '100.00', suspense: '0.00', 'payout-clearing': '0.00' });
    expect(await t.entriesOf(tenant, id, 3)).toHaveLength(3);
  });

  it("reconciles every step of completed and failed withdrawals, and names the case whose outcome's entry differs", async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.earnFees(tenant, '100.00');
    await t.state.harness.fundFloat(tenant, '100.00');
    const completed = await t.approved(tenant, 'tenant_fees', '30.00', PAID);
    const failed = await t.approved(tenant, 'operating_float', '40.00', REFUSED);
    const completedCase = await t.final(tenant, completed);
    const failedCase = await t.final(tenant, failed);
    const check = async (mode?: 'full') => {
      const response = await fetch(`${t.state.harness.url}/internal/v1/business-records/check`, {
        method: 'POST',
        headers: { 'x-internal-token': systemToken(), 'content-type': 'application/json' },
        body: JSON.stringify({ tenantId: tenant.tenantId, environment: 'live', ...(mode ? { mode } : {}) }),
      });
      expect(response.status).toBe(200);
      return businessRecordsCheckSchema.parse(await response.json());
    };
    const clean = await check();
    expect(clean.mismatches).toEqual([]);
    // Two cases, six entries: each held, settled and delivered.
    expect(clean.coverage.find((each) => each.referenceType === 'withdrawal')).toMatchObject({ records: 2, entries: 6 });

    // The completed case told as a bank withdrawal: its complete entry no longer is what the case builds.
    await t.state.harness.db('withdrawals').where({ id: completed }).update({ payout_method: 'bank' });
    const failedLine = t.state.harness
      .ledgerDb('journal_entries')
      .where({ id: failedCase.outcomeJournalEntryId as string })
      .select('seq');
    await t.state.harness.ledgerDb('journal_lines').where({ entry_seq: failedLine, direction: 'DR' }).update({ amount: '40.01' });
    try {
      const found = await check('full');
      expect(found.mismatches).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            referenceType: 'withdrawal',
            recordId: completed,
            journalEntryId: completedCase.outcomeJournalEntryId,
            problem: 'journal_entry_differs',
          }),
          expect.objectContaining({
            referenceType: 'withdrawal',
            recordId: failed,
            journalEntryId: failedCase.outcomeJournalEntryId,
            problem: 'journal_entry_differs',
          }),
        ]),
      );
      expect(found.mismatches).toHaveLength(2);
    } finally {
      await t.state.harness.db('withdrawals').where({ id: completed }).update({ payout_method: 'momo' });
      await t.state.harness.ledgerDb('journal_lines').where({ entry_seq: failedLine, direction: 'DR' }).update({ amount: '40.00' });
    }
    expect((await check('full')).mismatches).toEqual([]);
  });
});

describe('withdrawal delivery interrupted between the rail answer and its recording', () => {
  const others: RunningService[] = [];
  // Before the harness's own: the instances started here close while what they use is still up.
  afterAll(async () => {
    for (const other of others) await other.close();
  });
  // The hook stops the worker right after the rail answered, before anything is recorded.
  const t = setup({ TREASURY_WITHDRAWAL_RAIL_CRASH_AFTER_DELIVERY: '1' });

  it('resumes on another instance with the same case id: the rail pays once, and the outcome is recorded and posted once', async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.earnFees(tenant, '100.00');
    await t.state.harness.fundFloat(tenant, '100.00');
    const paid = await t.approved(tenant, 'tenant_fees', '25.00', PAID);
    await waitFor(async () => ((await t.sandboxRecord(paid))?.calls === 1 ? true : undefined), {
      what: 'the rail to answer',
      timeoutMs: 60_000,
    });
    // Give a recording that should not happen the time to happen.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await t.state.harness.db('withdrawals').where({ id: paid }).first(['status', 'rail_reference'])).toEqual({
      status: 'approved',
      rail_reference: null,
    });
    const refused = await t.approved(tenant, 'operating_float', '35.00', REFUSED);

    // The ledger is away while the outcomes are recorded: the cases read as awaiting it until it posts them.
    await t.state.harness.whileLedgerStopped(async () => {
      others.push(await start({ ...t.state.harness.serviceEnv, TREASURY_WITHDRAWAL_RAIL_CRASH_AFTER_DELIVERY: '0' }));
      const recorded = await waitFor(
        async () => {
          const shown = await t.read(tenant, paid);
          return shown.status === 'completed' ? shown : undefined;
        },
        { what: `the outcome of ${paid} recorded`, timeoutMs: 60_000 },
      );
      expect(recorded).toMatchObject({ outcomeJournalEntryId: null, awaitingLedger: true });
    });

    expect((await t.final(tenant, paid)).status).toBe('completed');
    expect((await t.final(tenant, refused)).status).toBe('failed');
    expect((await t.entriesOf(tenant, paid, 3)).map((entry) => entry.kind)).toEqual([
      'withdrawal_hold',
      'withdrawal_settle',
      'withdrawal_complete',
    ]);
    expect((await t.entriesOf(tenant, refused, 3)).map((entry) => entry.kind)).toEqual([
      'withdrawal_hold',
      'withdrawal_settle',
      'withdrawal_fail',
    ]);
    // One delivery each, remembered: the paid case was asked twice (before and after the crash).
    expect(await t.sandboxRecord(paid)).toEqual({ status: 'succeeded', calls: 2 });
    expect((await t.sandboxRecord(refused))?.status).toBe('failed');
    expect(await t.balances(tenant)).toMatchObject({
      'revenue:fees': '75.00',
      'asset:pool:USD': '100.00',
      'asset:momo-clearing:USD': '-25.00',
      suspense: '0.00',
      'payout-clearing': '0.00',
    });
    expect(await t.balancesOffTheirLines(tenant)).toEqual([]);
  });
});

describe('withdrawal delivery with two treasury instances', () => {
  let second: RunningService | undefined;
  // Before the harness's own, as above.
  afterAll(async () => {
    await second?.close();
  });
  const t = setup({ TREASURY_WITHDRAWAL_RAIL_LEASE_MS: '60000', TREASURY_SANDBOX_RAIL_DELAY_MS: '50' });
  beforeAll(async () => {
    second = await start(t.state.harness.serviceEnv);
  });

  it('delivers each approved case through one of them: one rail call and one outcome entry per case', async () => {
    const tenant = await t.state.harness.newTenant();
    await t.state.harness.earnFees(tenant, '500.00');
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1)
      ids.push(await t.approved(tenant, 'tenant_fees', '10.00', { ...PAID, phoneNumber: `+25670000010${index}` }));
    for (const id of ids) expect(await t.final(tenant, id)).toMatchObject({ id, status: 'completed' });
    for (const id of ids) {
      expect(await t.sandboxRecord(id)).toEqual({ status: 'succeeded', calls: 1 });
      expect((await t.entriesOf(tenant, id, 3)).map((entry) => entry.kind)).toEqual([
        'withdrawal_hold',
        'withdrawal_settle',
        'withdrawal_complete',
      ]);
    }
    expect(await t.balances(tenant)).toMatchObject({
      'revenue:fees': '440.00',
      'asset:momo-clearing:USD': '-60.00',
      'payout-clearing': '0.00',
    });
  });
});
