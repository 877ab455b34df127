import { randomUUID } from 'node:crypto';
import {
  auditRecordV1Schema,
  depositSchema,
  errorBodySchema,
  matchSuggestionsSchema,
  statementLinePageSchema,
  statementMatchSchema,
  walletSchema,
} from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type IdentityPeer, startIdentity } from './deposits-support';
import { type HttpResult, type LedgerBackedHarness, startLedgerBackedHarness, tenantToken } from './support';

/**
 * The reconciliation workbench: a slip and a statement line the exact rule cannot pair (their
 * references differ) are matched by one member and approved by another, which credits the slip
 * through the ledger once and matches the line. Real: PostgreSQL, RabbitMQ, payments over HTTP,
 * the ledger beside it, and identity answering for the members.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;
let audits: { received(): Promise<unknown[]> };

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness({
    IDENTITY_URL: identity.url,
    PAYMENTS_TENANT_WAIT_MS: '1000',
    PAYMENTS_DEPOSIT_REPLY_WAIT_MS: '3000',
  });
  audits = await harness.watchAuditRecords();
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

interface Bench {
  tenantId: string;
  maker: string;
  checker: string;
  observer: string;
  walletId: string;
}

async function newBench(): Promise<Bench> {
  const config = { allowedCurrencies: ['USD'], maxTransactionAmount: '100000' };
  const tenantId = await identity.createTenant(config);
  await harness.publishTenant(tenantId, config);
  const wallet = await call(tenantId, 'POST', '/v1/wallets', {
    ownerType: 'user',
    ownerId: `user-${randomUUID().slice(0, 8)}`,
    currencyCode: 'USD',
  });
  return {
    tenantId,
    maker: await identity.addMember(tenantId, 'operator'),
    checker: await identity.addMember(tenantId, 'operator'),
    observer: await identity.addMember(tenantId, 'observer'),
    walletId: walletSchema.parse(wallet.body).id,
  };
}

function call(tenantId: string, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return harness.request(method, path, { token: tenantToken(tenantId), ...(body === undefined ? {} : { body }) });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${errorBodySchema.safeParse(result.body).data?.error.code}`).toBe(`${status} ${code}`);
}

/** A pending slip, and a statement line of its money whose reference the bank wrote its own way. */
async function slipAndLine(bench: Bench, amount: string, lineAmount = amount): Promise<{ depositId: string; lineId: string }> {
  const reference = `SLIP-${randomUUID().slice(0, 6)}`;
  const slip = await call(bench.tenantId, 'POST', '/v1/deposits/bank-slips', {
    walletId: bench.walletId,
    amount,
    currencyCode: 'USD',
    bankCode: 'stanbic',
    slipReference: reference,
  });
  expect(slip.status).toBe(201);
  const today = new Date().toISOString().slice(0, 10);
  const lineReference = `TRF ${reference.replace('-', ' ')} JANE`;
  const imported = await call(bench.tenantId, 'POST', '/v1/bank-statements', {
    bankCode: 'stanbic',
    currencyCode: 'USD',
    lines: [{ date: today, reference: lineReference, amount: lineAmount }],
  });
  expect(imported.status).toBe(201);
  const lines = statementLinePageSchema.parse((await call(bench.tenantId, 'GET', '/v1/bank-statements/lines?matched=false')).body);
  const line = lines.data.find((each) => each.reference === lineReference);
  return { depositId: slip.body.id as string, lineId: line?.id as string };
}

const propose = (bench: Bench, pair: { depositId: string; lineId: string }, proposedBy = bench.maker) =>
  call(bench.tenantId, 'POST', '/v1/reconciliation/matches', {
    depositId: pair.depositId,
    statementLineId: pair.lineId,
    reason: 'The bank wrote the reference with the depositor name',
    proposedBy,
  });

const decide = (bench: Bench, id: string, action: 'approve' | 'reject', actorId: string) =>
  call(
    bench.tenantId,
    'POST',
    `/v1/reconciliation/matches/${id}/${action}`,
    action === 'approve' ? { actorId } : { actorId, reason: 'not ours' },
  );

async function depositEntries(depositId: string): Promise<number> {
  const rows = await harness.ledger
    .db('journal_entries')
    .where({ reference_type: 'deposit', reference_id: depositId })
    .count<{ count: string }[]>('* as count');
  return Number(rows[0]?.count);
}

describe('reconciliation workbench', () => {
  it('suggests the line by the rule, and a maker-checker match credits the slip once through the ledger, matching the line', async () => {
    const bench = await newBench();
    const pair = await slipAndLine(bench, '120.00');
    // The exact rule finds nothing: the references differ. A rule that ignores them finds the line.
    expect((await call(bench.tenantId, 'POST', `/v1/deposits/${pair.depositId}/verify`, { actorId: bench.checker })).body.status).toBe(
      'rejected',
    );
    expect(
      (await call(bench.tenantId, 'POST', `/v1/deposits/${pair.depositId}/reopen`, { actorId: bench.checker, reason: 'statement arrived' }))
        .status,
    ).toBe(200);
    expect((await call(bench.tenantId, 'PUT', '/v1/reconciliation/match-rule', { reference: 'contains', dateWindowDays: 2 })).status).toBe(
      200,
    );
    const before = matchSuggestionsSchema.parse((await call(bench.tenantId, 'GET', '/v1/reconciliation/suggestions')).body);
    expect(before.data.find((each) => each.deposit.id === pair.depositId)?.candidates).toEqual([]);
    await call(bench.tenantId, 'PUT', '/v1/reconciliation/match-rule', { reference: 'any', dateWindowDays: 2 });
    const suggested = matchSuggestionsSchema.parse((await call(bench.tenantId, 'GET', '/v1/reconciliation/suggestions')).body);
    expect(suggested.data.find((each) => each.deposit.id === pair.depositId)?.candidates.map((line) => line.id)).toEqual([pair.lineId]);

    const proposed = await propose(bench, pair);
    expect(proposed.status).toBe(201);
    const match = statementMatchSchema.parse(proposed.body);
    expect(match).toMatchObject({
      status: 'pending',
      proposedBy: bench.maker,
      deposit: { status: 'pending' },
      statementLine: { depositId: null },
    });
    expectError(await decide(bench, match.id, 'approve', bench.maker), 403, 'SELF_APPROVAL_FORBIDDEN');
    expectError(await decide(bench, match.id, 'approve', bench.observer), 403, 'ACTOR_NOT_PERMITTED');
    expect(await depositEntries(pair.depositId)).toBe(0);

    const answers = await Promise.all(Array.from({ length: 6 }, () => decide(bench, match.id, 'approve', bench.checker)));
    const approved = answers.filter((answer) => answer.status === 200);
    expect(approved).toHaveLength(1);
    for (const other of answers.filter((answer) => answer.status !== 200)) expectError(other, 409, 'MATCH_NOT_PENDING');
    const shown = statementMatchSchema.parse(approved[0]?.body);
    expect(shown).toMatchObject({
      status: 'approved',
      decidedBy: bench.checker,
      deposit: { status: 'completed', journalEntryId: expect.stringMatching(/^je_/) },
    });
    expect(shown.statementLine.depositId).toBe(pair.depositId);
    expect(await depositEntries(pair.depositId)).toBe(1);
    const deposit = depositSchema.parse((await call(bench.tenantId, 'GET', `/v1/deposits/${pair.depositId}`)).body);
    expect(deposit).toMatchObject({ status: 'completed', verifiedBy: bench.checker });
    const unmatched = statementLinePageSchema.parse((await call(bench.tenantId, 'GET', '/v1/bank-statements/lines?matched=false')).body);
    expect(unmatched.data.map((line) => line.id)).not.toContain(pair.lineId);
    const actions = await waitFor(
      async () => {
        const found = (await audits.received())
          .map((each) => auditRecordV1Schema.parse(each))
          .filter((record) => record.targetId === match.id);
        return found.length >= 2 ? found.map((record) => [record.action, record.actorId]) : undefined;
      },
      { what: 'the match audited' },
    );
    // The relay does not keep the order of two transactions' messages.
    expect(actions.sort()).toEqual([
      ['statement_match.approved', bench.checker],
      ['statement_match.proposed', bench.maker],
    ]);
  });

  it('refuses a match of another amount, a second match of one line, and a member who may not verify; a rejection frees both', async () => {
    const bench = await newBench();
    const differing = await slipAndLine(bench, '80.00', '80.50');
    expectError(await propose(bench, differing), 422, 'MATCH_MISMATCH');
    expectError(await propose(bench, differing, bench.observer), 403, 'ACTOR_NOT_PERMITTED');

    const pair = await slipAndLine(bench, '75.00');
    const first = statementMatchSchema.parse((await propose(bench, pair)).body);
    expectError(await propose(bench, pair, bench.checker), 409, 'STATEMENT_LINE_TAKEN');
    const rejected = await decide(bench, first.id, 'reject', bench.checker);
    expect(statementMatchSchema.parse(rejected.body)).toMatchObject({
      status: 'rejected',
      rejectionReason: 'not ours',
      deposit: { status: 'pending' },
    });
    expect(await depositEntries(pair.depositId)).toBe(0);
    expect((await propose(bench, pair, bench.checker)).status).toBe(201);
    expectError(
      await call(bench.tenantId, 'POST', '/v1/reconciliation/matches/sm_00000000000000000000000000/approve', { actorId: bench.checker }),
      404,
      'MATCH_NOT_FOUND',
    );
  });
});
