import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import {
  businessRecordsCheckSchema,
  errorBodySchema,
  journalEntrySchema,
  treasuryBalancesSchema,
  withdrawalPageSchema,
} from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type Caller, type HttpResult, systemToken, tenantToken } from './support';
import { parseWithdrawal, startWithdrawalsHarness, type WithdrawalsHarness, type WithdrawalTenant } from './withdrawals-support';

/**
 * Real: PostgreSQL, RabbitMQ, treasury over HTTP, the ledger beside it, and identity answering
 * for the members who request and decide. Fee revenue is booked the way a fee-bearing deposit
 * books it; the operating float is funded through float deposits.
 */
let harness: WithdrawalsHarness & { closeAll(): Promise<void> };

beforeAll(async () => {
  harness = await startWithdrawalsHarness();
});

afterAll(async () => {
  await harness?.closeAll();
});

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

async function usd(caller: Caller) {
  const read = await harness.request(caller, 'GET', '/v1/admin/money/balances');
  expect(read.status).toBe(200);
  const row = treasuryBalancesSchema.parse(read.body).data.find((each) => each.currencyCode === 'USD');
  if (!row) throw new Error('no USD row');
  return {
    operatingFloat: row.operatingFloat,
    tenantFeeRevenue: row.tenantFeeRevenue,
    suspense: row.suspense,
    payoutClearing: row.payoutClearing,
  };
}

async function entry(caller: Caller, id: string) {
  const response = await fetch(`${harness.ledgerUrl}/v1/journal/${id}`, {
    headers: { 'x-internal-token': tenantToken(caller, ['ledger:read']) },
  });
  expect(response.status).toBe(200);
  const parsed = journalEntrySchema.parse(await response.json());
  return {
    kind: parsed.kind,
    reference: parsed.reference,
    lines: parsed.lines.map((line) => `${line.direction} ${line.accountName} ${line.amount} ${line.currencyCode}`),
  };
}

async function entriesFor(caseId: string): Promise<string[]> {
  const rows: Array<{ kind: string }> = await harness
    .ledgerDb('journal_entries')
    .where({ reference_type: 'withdrawal', reference_id: caseId })
    .orderBy('seq')
    .select('kind');
  return rows.map((row) => row.kind);
}

function decide(
  tenant: WithdrawalTenant,
  id: string,
  action: 'approve' | 'reject',
  actorId: string,
  options: { actor?: string; key?: string | null } = {},
): Promise<HttpResult> {
  const body = action === 'approve' ? { actorId } : { actorId, reason: 'not this month' };
  return harness.request(tenant, 'POST', `/v1/admin/money/withdrawals/${id}/${action}`, {
    body,
    key: options.key === undefined ? null : options.key,
    ...(options.actor !== undefined ? { actor: options.actor } : {}),
  });
}

/** The decision's entry, once the ledger posted it (recorded from its event). */
async function decisionEntryOf(tenant: WithdrawalTenant, id: string): Promise<string> {
  return waitFor(
    async () => {
      const read = await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${id}`);
      return (read.body?.decisionJournalEntryId as string | null) ?? undefined;
    },
    { what: `the decision entry of ${id}` },
  );
}

async function heldWithdrawal(tenant: WithdrawalTenant, source: 'tenant_fees' | 'operating_float', amount: string) {
  const created = await harness.requestWithdrawal(tenant, { source, amount });
  expect(created.status).toBe(201);
  return parseWithdrawal(created);
}

describe('money: hold, settle and release move exactly the decided lines', () => {
  it('tenant_fees: DR revenue:fees / CR suspense, then DR suspense / CR payout-clearing, or back to revenue:fees', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '100.00');
    expect(await usd(tenant)).toEqual({ operatingFloat: '0.00', tenantFeeRevenue: '100.00', suspense: '0.00', payoutClearing: '0.00' });

    const approved = await heldWithdrawal(tenant, 'tenant_fees', '40.25');
    expect(approved).toMatchObject({
      source: 'tenant_fees',
      amount: '40.25',
      currencyCode: 'USD',
      status: 'pending',
      requestedBy: tenant.maker,
      failureCode: null,
      decidedBy: null,
    });
    expect(approved.id).toMatch(/^pc_/);
    expect(await entry(tenant, approved.holdJournalEntryId as string)).toEqual({
      kind: 'withdrawal_hold',
      reference: { type: 'withdrawal', id: approved.id },
      lines: ['DR revenue:fees 40.25 USD', 'CR suspense 40.25 USD'],
    });
    expect(await usd(tenant)).toEqual({ operatingFloat: '0.00', tenantFeeRevenue: '59.75', suspense: '40.25', payoutClearing: '0.00' });

    const rejected = await heldWithdrawal(tenant, 'tenant_fees', '9.75');
    expect(await usd(tenant)).toEqual({ operatingFloat: '0.00', tenantFeeRevenue: '50.00', suspense: '50.00', payoutClearing: '0.00' });

    const approval = await decide(tenant, approved.id, 'approve', tenant.checker);
    expect(approval.status).toBe(200);
    expect(parseWithdrawal(approval)).toMatchObject({ status: 'approved', decidedBy: tenant.checker, rejectionReason: null });
    expect(await entry(tenant, await decisionEntryOf(tenant, approved.id))).toEqual({
      kind: 'withdrawal_settle',
      reference: { type: 'withdrawal', id: approved.id },
      lines: ['DR suspense 40.25 USD', 'CR payout-clearing 40.25 USD'],
    });

    const rejection = await decide(tenant, rejected.id, 'reject', tenant.checker);
    expect(rejection.status).toBe(200);
    expect(parseWithdrawal(rejection)).toMatchObject({ status: 'rejected', decidedBy: tenant.checker, rejectionReason: 'not this month' });
    expect(await entry(tenant, await decisionEntryOf(tenant, rejected.id))).toEqual({
      kind: 'withdrawal_release',
      reference: { type: 'withdrawal', id: rejected.id },
      lines: ['DR suspense 9.75 USD', 'CR revenue:fees 9.75 USD'],
    });

    expect(await usd(tenant)).toEqual({ operatingFloat: '0.00', tenantFeeRevenue: '59.75', suspense: '0.00', payoutClearing: '40.25' });
    expect(await entriesFor(approved.id)).toEqual(['withdrawal_hold', 'withdrawal_settle']);
    expect(await entriesFor(rejected.id)).toEqual(['withdrawal_hold', 'withdrawal_release']);
  });

  it('operating_float: the amount leaves asset:pool (CR) into suspense, then payout-clearing, or back to the pool', async () => {
    const tenant = await harness.newTenant();
    await harness.fundFloat(tenant, '500.00');
    expect(await usd(tenant)).toEqual({ operatingFloat: '500.00', tenantFeeRevenue: '0.00', suspense: '0.00', payoutClearing: '0.00' });

    const approved = await heldWithdrawal(tenant, 'operating_float', '200.10');
    expect(await entry(tenant, approved.holdJournalEntryId as string)).toEqual({
      kind: 'withdrawal_hold',
      reference: { type: 'withdrawal', id: approved.id },
      lines: ['CR asset:pool:USD 200.10 USD', 'DR suspense 200.10 USD'],
    });
    expect(await usd(tenant)).toEqual({ operatingFloat: '299.90', tenantFeeRevenue: '0.00', suspense: '-200.10', payoutClearing: '0.00' });

    const rejected = await heldWithdrawal(tenant, 'operating_float', '99.90');
    expect(await usd(tenant)).toEqual({ operatingFloat: '200.00', tenantFeeRevenue: '0.00', suspense: '-300.00', payoutClearing: '0.00' });

    expect((await decide(tenant, approved.id, 'approve', tenant.checker)).status).toBe(200);
    expect(await entry(tenant, await decisionEntryOf(tenant, approved.id))).toEqual({
      kind: 'withdrawal_settle',
      reference: { type: 'withdrawal', id: approved.id },
      lines: ['CR suspense 200.10 USD', 'DR payout-clearing 200.10 USD'],
    });
    expect((await decide(tenant, rejected.id, 'reject', tenant.checker)).status).toBe(200);
    expect(await entry(tenant, await decisionEntryOf(tenant, rejected.id))).toEqual({
      kind: 'withdrawal_release',
      reference: { type: 'withdrawal', id: rejected.id },
      lines: ['CR suspense 99.90 USD', 'DR asset:pool:USD 99.90 USD'],
    });

    expect(await usd(tenant)).toEqual({ operatingFloat: '299.90', tenantFeeRevenue: '0.00', suspense: '0.00', payoutClearing: '-200.10' });
  });
});

describe('POST /v1/admin/money/withdrawals', () => {
  it.each([['tenant_fees'], ['operating_float']] as const)(
    '%s: more than the source holds is 422 INSUFFICIENT_FUNDS and moves nothing',
    async (source) => {
      const tenant = await harness.newTenant();
      if (source === 'tenant_fees') await harness.earnFees(tenant, '30.00');
      else await harness.fundFloat(tenant, '30.00');
      const before = await usd(tenant);
      const key = `idem-${randomUUID()}`;

      const refused = await harness.requestWithdrawal(tenant, { source, amount: '30.01' }, { key });
      const error = expectError(refused, 422, 'INSUFFICIENT_FUNDS');
      const caseId = error.details?.withdrawalId as string;
      expect(await usd(tenant)).toEqual(before);
      expect(await entriesFor(caseId)).toEqual([]);
      expect(parseWithdrawal(await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${caseId}`))).toMatchObject({
        status: 'failed',
        failureCode: 'INSUFFICIENT_FUNDS',
        holdJournalEntryId: null,
      });
      // The replay answers the same refusal; a failed case cannot be decided.
      expectError(await harness.requestWithdrawal(tenant, { source, amount: '30.01' }, { key }), 422, 'INSUFFICIENT_FUNDS');
      expectError(await decide(tenant, caseId, 'approve', tenant.checker), 409, 'CASE_NOT_PENDING');
      expect(await usd(tenant)).toEqual(before);

      // Exactly what it holds is withdrawable.
      expect((await harness.requestWithdrawal(tenant, { source, amount: '30.00' })).status).toBe(201);
    },
  );

  it.each([['tenant_fees'], ['operating_float']] as const)(
    '%s: withdrawals racing for the same funds never overdraw the source',
    async (source) => {
      const tenant = await harness.newTenant();
      if (source === 'tenant_fees') await harness.earnFees(tenant, '100.00');
      else await harness.fundFloat(tenant, '100.00');
      const results = await Promise.all(Array.from({ length: 12 }, () => harness.requestWithdrawal(tenant, { source, amount: '30.00' })));
      expect(results.map((result) => result.status).sort()).toEqual([...Array(3).fill(201), ...Array(9).fill(422)]);
      for (const result of results.filter((each) => each.status === 422)) expectError(result, 422, 'INSUFFICIENT_FUNDS');
      const column = source === 'tenant_fees' ? 'tenantFeeRevenue' : 'operatingFloat';
      const after = await usd(tenant);
      expect(after[column]).toBe('10.00');
      expect(after.suspense).toBe(source === 'tenant_fees' ? '90.00' : '-90.00');
      const holds: Array<{ count: string }> = await harness
        .ledgerDb('journal_entries')
        .where({ tenant_id: tenant.tenantId, kind: 'withdrawal_hold' })
        .count('* as count');
      expect(holds[0]?.count).toBe('3');
    },
  );

  it('answers a replay with the same case and holds once', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    const key = `idem-${randomUUID()}`;
    const first = await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '20.00' }, { key });
    const again = await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '20.00' }, { key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await entriesFor(first.body.id)).toEqual(['withdrawal_hold']);
    expect((await usd(tenant)).tenantFeeRevenue).toBe('30.00');
    expect(await harness.db('withdrawals').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '1' },
    ]);
    expectError(
      await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '21.00' }, { key }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it('takes bank and cash destinations in their own shapes', async () => {
    const tenant = await harness.newTenant();
    await harness.fundFloat(tenant, '50.00');
    const bank = await harness.requestWithdrawal(tenant, {
      source: 'operating_float',
      amount: '10',
      payoutMethod: 'bank',
      destination: { bankCode: 'STANBIC', accountNumber: '0123456789', accountName: 'Acme Ltd' },
    });
    expect(bank.status).toBe(201);
    expect(parseWithdrawal(bank).destination).toEqual({ bankCode: 'STANBIC', accountNumber: '0123456789', accountName: 'Acme Ltd' });
    const cash = await harness.requestWithdrawal(tenant, {
      source: 'operating_float',
      amount: '10',
      payoutMethod: 'cash',
      destination: { recipientName: 'Jane Doe', location: 'Kampala branch' },
    });
    expect(cash.status).toBe(201);
    expectError(
      await harness.requestWithdrawal(tenant, {
        source: 'operating_float',
        amount: '10',
        payoutMethod: 'cash',
        destination: { phoneNumber: '+256700000001', network: 'mtn' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await harness.requestWithdrawal(tenant, { source: 'savings', amount: '10' }), 400, 'VALIDATION_ERROR');
    expectError(await harness.requestWithdrawal(tenant, { source: 'operating_float', amount: '10.001' }), 400, 'INVALID_AMOUNT');
    expect((await usd(tenant)).operatingFloat).toBe('30.00');
  });

  it('requires the requester to be an active member allowed treasury:write, and the same actor as the header', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    expectError(
      await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '5' }, { requestedBy: tenant.checker }),
      403,
      'ACTOR_NOT_PERMITTED',
    );
    expectError(
      await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '5' }, { requestedBy: tenant.observer }),
      403,
      'ACTOR_NOT_PERMITTED',
    );
    expectError(
      await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '5' }, { requestedBy: 'usr_nobody' }),
      403,
      'ACTOR_NOT_PERMITTED',
    );
    expectError(
      await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '5' }, { actor: tenant.observer }),
      403,
      'ACTOR_MISMATCH',
    );
    expect(await harness.db('withdrawals').where({ tenant_id: tenant.tenantId }).first()).toBeUndefined();
    expect((await usd(tenant)).tenantFeeRevenue).toBe('50.00');
    expect((await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '5' }, { actor: tenant.maker })).status).toBe(201);
  });
});

describe('maker-checker decisions', () => {
  it('refuses the requester, members without treasury:approve, and a body actor other than the header', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    const held = await heldWithdrawal(tenant, 'tenant_fees', '10.00');
    expectError(await decide(tenant, held.id, 'approve', tenant.maker), 403, 'SELF_APPROVAL_FORBIDDEN');
    expectError(await decide(tenant, held.id, 'reject', tenant.maker), 403, 'SELF_APPROVAL_FORBIDDEN');
    expectError(await decide(tenant, held.id, 'approve', tenant.observer), 403, 'ACTOR_NOT_PERMITTED');
    expectError(await decide(tenant, held.id, 'approve', 'usr_nobody'), 403, 'ACTOR_NOT_PERMITTED');
    expectError(await decide(tenant, held.id, 'approve', tenant.checker, { actor: tenant.otherChecker }), 403, 'ACTOR_MISMATCH');
    expect(parseWithdrawal(await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${held.id}`))).toMatchObject({
      status: 'pending',
      decidedBy: null,
    });
    expect(await entriesFor(held.id)).toEqual(['withdrawal_hold']);
    expectError(await decide(tenant, 'pc_UNKNOWN', 'approve', tenant.checker), 404, 'NOT_FOUND');

    expect((await decide(tenant, held.id, 'approve', tenant.checker, { actor: tenant.checker })).status).toBe(200);
  });

  it('answers a second decision 409 CASE_NOT_PENDING and replays a decision made under a key', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    const held = await heldWithdrawal(tenant, 'tenant_fees', '10.00');
    const key = `idem-${randomUUID()}`;
    const approved = await decide(tenant, held.id, 'approve', tenant.checker, { key });
    expect(approved.status).toBe(200);
    const replayed = await decide(tenant, held.id, 'approve', tenant.checker, { key });
    expect(replayed).toEqual(approved);
    const error = expectError(await decide(tenant, held.id, 'reject', tenant.otherChecker), 409, 'CASE_NOT_PENDING');
    expect(error.details).toMatchObject({ status: 'approved' });
    expectError(await decide(tenant, held.id, 'approve', tenant.otherChecker), 409, 'CASE_NOT_PENDING');
    await decisionEntryOf(tenant, held.id);
    expect(await entriesFor(held.id)).toEqual(['withdrawal_hold', 'withdrawal_settle']);
  });

  it('lets exactly one of 20 concurrent decisions through', async () => {
    const tenant = await harness.newTenant();
    await harness.fundFloat(tenant, '80.00');
    const held = await heldWithdrawal(tenant, 'operating_float', '80.00');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        decide(tenant, held.id, index % 2 === 0 ? 'approve' : 'reject', index % 4 < 2 ? tenant.checker : tenant.otherChecker),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    for (const result of results.filter((each) => each.status !== 200)) expectError(result, 409, 'CASE_NOT_PENDING');
    const winner = parseWithdrawal(results.find((result) => result.status === 200) as HttpResult);
    await decisionEntryOf(tenant, held.id);
    expect(await entriesFor(held.id)).toEqual([
      'withdrawal_hold',
      winner.status === 'approved' ? 'withdrawal_settle' : 'withdrawal_release',
    ]);
    expect((await usd(tenant)).suspense).toBe('0.00');
    const audits = (await harness.auditsOf(held.id)).map((record) => record.action);
    expect(audits.sort()).toEqual(['withdrawal.requested', `withdrawal.${winner.status}`].sort());
  });

  it('audits the request and the decision with who took them', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    const held = await heldWithdrawal(tenant, 'tenant_fees', '10.00');
    expect((await decide(tenant, held.id, 'reject', tenant.checker)).status).toBe(200);
    const records = await waitFor(
      async () => {
        const found = await harness.auditsOf(held.id);
        return found.length >= 2 ? found : undefined;
      },
      { what: 'the audit records' },
    );
    expect(records.map((record) => [record.action, record.actorId, record.targetType, record.tenantId])).toEqual([
      ['withdrawal.requested', tenant.maker, 'withdrawal', tenant.tenantId],
      ['withdrawal.rejected', tenant.checker, 'withdrawal', tenant.tenantId],
    ]);
    expect(records[1]?.metadata).toMatchObject({ before: { status: 'pending' }, after: { status: 'rejected' }, reason: 'not this month' });
  });
});

describe('a decision answers once the ledger has moved the money', () => {
  it('answers 200 with the settle or release posted, and the case and the balances read right after show exactly that', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '1000.00');
    let revenue = new BigNumber('1000.00');
    let clearing = new BigNumber(0);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5_000 }),
        fc.constantFrom('approve' as const, 'reject' as const),
        async (cents, action) => {
          const amount = new BigNumber(cents).shiftedBy(-2);
          const held = await heldWithdrawal(tenant, 'tenant_fees', amount.toFixed(2));
          const answer = await decide(tenant, held.id, action, tenant.checker);
          expect(answer.status).toBe(200);
          expect(answer.body).toMatchObject({
            status: action === 'approve' ? 'approved' : 'rejected',
            decisionJournalEntryId: expect.stringMatching(/^je_/),
          });
          // No waiting: the answer came after the ledger posted, and the reads say the same.
          if (action === 'approve') {
            revenue = revenue.minus(amount);
            clearing = clearing.plus(amount);
          }
          expect(await usd(tenant)).toEqual({
            operatingFloat: '0.00',
            tenantFeeRevenue: revenue.toFixed(2),
            suspense: '0.00',
            payoutClearing: clearing.toFixed(2),
          });
          expect([held.awaitingLedger, parseWithdrawal(answer).awaitingLedger]).toEqual([false, false]);
          expect((await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${held.id}`)).body).toEqual(answer.body);
          expect(await entriesFor(held.id)).toEqual(['withdrawal_hold', action === 'approve' ? 'withdrawal_settle' : 'withdrawal_release']);
        },
      ),
      { numRuns: 6 },
    );
  });

  it('answers 202 past the deadline, replays that answer, and reads the decision as awaiting the ledger until its entry posted', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    const held = await heldWithdrawal(tenant, 'tenant_fees', '10.00');
    const key = `idem-${randomUUID()}`;
    const accepted = await harness.whileLedgerStopped(async () => {
      const first = await decide(tenant, held.id, 'approve', tenant.checker, { key });
      expect(first.status).toBe(202);
      expect(parseWithdrawal(first)).toMatchObject({ status: 'approved', awaitingLedger: true, decisionJournalEntryId: null });
      expect((await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${held.id}`)).body).toEqual(first.body);
      expect(await decide(tenant, held.id, 'approve', tenant.checker, { key })).toEqual(first);
      // Decided, so final as a decision: another one is refused for good.
      expectError(await decide(tenant, held.id, 'reject', tenant.otherChecker), 409, 'CASE_NOT_PENDING');
      return first;
    });
    const settled = await waitFor(
      async () => {
        const read = parseWithdrawal(await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${held.id}`));
        return read.awaitingLedger ? undefined : read;
      },
      { what: 'the settle to post' },
    );
    expect(settled).toMatchObject({ id: accepted.body.id, status: 'approved', decisionJournalEntryId: expect.stringMatching(/^je_/) });
    expect(await usd(tenant)).toEqual({ operatingFloat: '0.00', tenantFeeRevenue: '40.00', suspense: '0.00', payoutClearing: '10.00' });
    expect(await entriesFor(held.id)).toEqual(['withdrawal_hold', 'withdrawal_settle']);
  });
});

describe('reads', () => {
  it('lists newest first with ?status and cursor pages', async () => {
    const tenant = await harness.newTenant();
    await harness.earnFees(tenant, '50.00');
    const first = await heldWithdrawal(tenant, 'tenant_fees', '1.00');
    const second = await heldWithdrawal(tenant, 'tenant_fees', '2.00');
    const third = await heldWithdrawal(tenant, 'tenant_fees', '3.00');
    expect((await decide(tenant, second.id, 'approve', tenant.checker)).status).toBe(200);

    const page1 = withdrawalPageSchema.parse((await harness.request(tenant, 'GET', '/v1/admin/money/withdrawals?limit=2')).body);
    expect(page1.data.map((each) => each.id)).toEqual([third.id, second.id]);
    const page2 = withdrawalPageSchema.parse(
      (await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals?limit=2&cursor=${encodeURIComponent(page1.nextCursor as string)}`))
        .body,
    );
    expect(page2).toMatchObject({ nextCursor: null });
    expect(page2.data.map((each) => each.id)).toEqual([first.id]);
    const pending = withdrawalPageSchema.parse((await harness.request(tenant, 'GET', '/v1/admin/money/withdrawals?status=pending')).body);
    expect(pending.data.map((each) => each.id)).toEqual([third.id, first.id]);
    const approved = withdrawalPageSchema.parse((await harness.request(tenant, 'GET', '/v1/admin/money/withdrawals?status=approved')).body);
    expect(approved.data.map((each) => each.id)).toEqual([second.id]);
    expectError(await harness.request(tenant, 'GET', '/v1/admin/money/withdrawals?status=delivered'), 400, 'VALIDATION_ERROR');
  });

  it('shows and decides nothing across tenants or environments', async () => {
    const owner = await harness.newTenant();
    await harness.earnFees(owner, '50.00');
    const held = await heldWithdrawal(owner, 'tenant_fees', '10.00');
    const intruder = await harness.newTenant();
    await harness.earnFees(intruder, '50.00');

    expectError(await harness.request(intruder, 'GET', `/v1/admin/money/withdrawals/${held.id}`), 404, 'NOT_FOUND');
    expect((await harness.request(intruder, 'GET', '/v1/admin/money/withdrawals')).body.data).toEqual([]);
    expectError(await decide(intruder, held.id, 'approve', intruder.checker), 404, 'NOT_FOUND');
    expectError(await decide(intruder, held.id, 'reject', intruder.checker), 404, 'NOT_FOUND');
    // The owner's members are not the intruder's: naming them from another tenant changes nothing.
    expectError(await decide(intruder, held.id, 'approve', owner.checker), 404, 'NOT_FOUND');
    const otherEnvironment = { ...owner, environment: 'test' as const };
    expectError(await harness.request(otherEnvironment, 'GET', `/v1/admin/money/withdrawals/${held.id}`), 404, 'NOT_FOUND');
    expectError(await decide(otherEnvironment, held.id, 'approve', owner.checker), 404, 'NOT_FOUND');

    expect(parseWithdrawal(await harness.request(owner, 'GET', `/v1/admin/money/withdrawals/${held.id}`))).toMatchObject({
      status: 'pending',
      decidedBy: null,
    });
    expect(await usd(intruder)).toEqual({ operatingFloat: '0.00', tenantFeeRevenue: '50.00', suspense: '0.00', payoutClearing: '0.00' });
    expect(await usd(owner)).toMatchObject({ tenantFeeRevenue: '40.00', suspense: '10.00' });
  });
});

describe("reconciliation check 3 of treasury's own records", () => {
  const systemPost = async (path: string, body: unknown) => {
    const response = await fetch(`${harness.url}${path}`, {
      method: 'POST',
      headers: { 'x-internal-token': systemToken(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it("compares each case's steps with the entries the ledger posted, answers only what it found, and refuses tenant tokens", async () => {
    const tenant = await harness.newTenant();
    await harness.fundFloat(tenant, '300.00');
    await harness.earnFees(tenant, '50.00');
    const approved = await heldWithdrawal(tenant, 'operating_float', '120.00');
    const rejected = await heldWithdrawal(tenant, 'tenant_fees', '20.00');
    const pending = await heldWithdrawal(tenant, 'tenant_fees', '5.00');
    expect((await decide(tenant, approved.id, 'approve', tenant.checker)).status).toBe(200);
    expect((await decide(tenant, rejected.id, 'reject', tenant.checker)).status).toBe(200);
    await decisionEntryOf(tenant, approved.id);
    await decisionEntryOf(tenant, rejected.id);

    const scope = { tenantId: tenant.tenantId, environment: 'live' };
    const clean = businessRecordsCheckSchema.parse((await systemPost('/internal/v1/business-records/check', scope)).body);
    expect(clean.mismatches).toEqual([]);
    // Three cases (five entries: three holds, a settlement, a release); the float deposit funding them is the other type.
    expect(clean.coverage.find((each) => each.referenceType === 'withdrawal')).toMatchObject({
      afterRecordSeq: '0',
      records: 3,
      afterEntrySeq: '0',
      entries: 5,
    });

    // A case changed in place no longer matches what the ledger posted for its steps.
    await harness.db('withdrawals').where({ id: pending.id }).update({ amount: '5.01' });
    const found = businessRecordsCheckSchema.parse(
      (await systemPost('/internal/v1/business-records/check', { ...scope, mode: 'full' })).body,
    );
    expect(found.mismatches).toEqual([
      expect.objectContaining({
        referenceType: 'withdrawal',
        recordId: pending.id,
        journalEntryId: pending.holdJournalEntryId,
        problem: 'journal_entry_differs',
      }),
    ]);
    await harness.db('withdrawals').where({ id: pending.id }).update({ amount: '5.00' });

    expect((await systemPost('/internal/v1/business-records/check', { tenantId: tenant.tenantId })).status).toBe(400);
    const asTenant = await harness.request(tenant, 'POST', '/internal/v1/business-records/check', {});
    expect(asTenant.status).toBe(403);
  });
});
