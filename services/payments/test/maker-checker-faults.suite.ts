import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import { errorBodySchema, formatAmount, type LedgerPostV1, payoutCaseSchema, walletSchema, withdrawalSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type IdentityPeer, startIdentity } from './deposits-support';
import { type HttpResult, type LedgerBackedHarness, startLedgerBackedHarness, tenantToken } from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments and treasury over HTTP, the ledger beside them (stopped and
 * started again on the same database and queues), and identity answering for the members.
 * Payouts and withdrawals are requested while the ledger is away, so each answers 202 with its
 * hold still to post, and decided before and after it returns.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;
let treasuryUrl: string;

beforeAll(async () => {
  identity = await startIdentity();
  // Short deadlines: the requests made while the ledger is away answer 202 quickly. Delivery is
  // off, so an approved payout or withdrawal stays approved.
  harness = await startLedgerBackedHarness(
    { IDENTITY_URL: identity.url, PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: '500', PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '0' },
    {
      treasury: true,
      treasuryEnv: { IDENTITY_URL: identity.url, TREASURY_POSTING_REPLY_TIMEOUT_MS: '500', TREASURY_WITHDRAWAL_RAIL_INTERVAL_MS: '0' },
    },
  );
  treasuryUrl = (harness.treasury as { url: string }).url;
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

type Action = 'approve' | 'reject';

interface Flow {
  kind: 'payout' | 'withdrawal';
  create: string;
  read(id: string): string;
  decide(id: string, action: Action): string;
}

const PAYOUTS: Flow = {
  kind: 'payout',
  create: '/v1/payouts',
  read: (id) => `/v1/payouts/cases/${id}`,
  decide: (id, action) => `/v1/payouts/${id}/${action}`,
};
const WITHDRAWALS: Flow = {
  kind: 'withdrawal',
  create: '/v1/admin/money/withdrawals',
  read: (id) => `/v1/admin/money/withdrawals/${id}`,
  decide: (id, action) => `/v1/admin/money/withdrawals/${id}/${action}`,
};

async function send(
  tenantId: string,
  flow: Flow,
  method: string,
  path: string,
  options: { body?: unknown; key?: string } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { 'x-internal-token': tenantToken(tenantId) };
  if (options.key) headers['idempotency-key'] = options.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const base = flow.kind === 'payout' ? `http://127.0.0.1:${harness.service.port}` : treasuryUrl;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

async function addMember(tenantId: string, orgRole: string): Promise<string> {
  const response = await fetch(`${identity.url}/v1/team`, {
    method: 'POST',
    headers: { 'x-internal-token': tenantToken(tenantId), 'content-type': 'application/json' },
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

function status(result: HttpResult): string {
  return `${result.status} ${result.body?.error?.code ?? result.body?.status}`;
}

interface Case {
  flow: Flow;
  id: string;
  amount: string;
  fee: string;
  /** The decision asked first, while the hold was posting; its rival is the other one. */
  action: Action;
  key: string;
}

function decisionBody(checker: string, action: Action) {
  return action === 'approve' ? { actorId: checker } : { actorId: checker, reason: 'not this one' };
}

/** Decides as a client that trusts the error code: it waits as Retry-After says while the hold is posting, and stops at any other answer. */
function decideWhenHeld(tenantId: string, checker: string, each: Case, action: Action, key: string): Promise<HttpResult> {
  return waitFor(
    async () => {
      const answer = await send(tenantId, each.flow, 'POST', each.flow.decide(each.id, action), {
        body: decisionBody(checker, action),
        key,
      });
      if (answer.body?.error?.code !== 'CASE_HOLD_IN_PROGRESS') return answer;
      expect(answer.headers.get('retry-after')).toBe('1');
      return undefined;
    },
    { intervalMs: 1_000, timeoutMs: 60_000, what: `a decision on ${each.id} once its hold posted` },
  );
}

it('refuses decisions on holds still posting as retryable, then takes exactly one decision per case once the ledger is back', async () => {
  const tenantId = await identity.createTenant({ allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' });
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
  const maker = await addMember(tenantId, 'operator');
  const checker = await addMember(tenantId, 'approver');
  const created = await send(tenantId, PAYOUTS, 'POST', '/v1/wallets', {
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
  });
  expect(created.status).toBe(201);
  const wallet = walletSchema.parse(created.body);
  // 1000.00 into the wallet and 100.00 of fee revenue, as a fee-bearing deposit books them.
  const funding: LedgerPostV1 = {
    type: 'ledger.post.v1',
    commandId: `fund-${randomUUID()}`,
    tenantId,
    environment: 'live',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount: '1100.00', currencyCode: 'USD' },
      { accountName: `wallet:${wallet.ownerId}`, walletId: wallet.id, direction: 'CR', amount: '1000.00', currencyCode: 'USD' },
      { accountName: 'revenue:fees', direction: 'CR', amount: '100.00', currencyCode: 'USD' },
    ],
  };
  expect((await harness.ledger.commands.request(funding)).status).toBe('posted');

  const requests = [
    ...['10.00', '20.00', '30.00', '40.00', '50.00', '60.00'].map((amount) => ({
      flow: PAYOUTS,
      body: {
        walletId: wallet.id,
        amount,
        currencyCode: 'USD',
        payoutMethod: 'momo',
        destination: { phoneNumber: '+256700000001', network: 'mtn' },
        requestedBy: maker,
      },
    })),
    ...['1.00', '2.00', '3.00', '4.00', '5.00', '6.00'].map((amount) => ({
      flow: WITHDRAWALS,
      body: {
        source: 'tenant_fees',
        amount,
        currencyCode: 'USD',
        payoutMethod: 'momo',
        destination: { phoneNumber: '+256700000002', network: 'mtn' },
        requestedBy: maker,
      },
    })),
  ];

  await harness.ledger.stop();
  let cases: Case[];
  try {
    const answers = await Promise.all(
      requests.map((request) =>
        send(tenantId, request.flow, 'POST', request.flow.create, { body: request.body, key: `idem-${randomUUID()}` }),
      ),
    );
    cases = answers.map((answer, index) => {
      const request = requests[index] as (typeof requests)[number];
      expect(answer.status).toBe(202);
      const shown = request.flow.kind === 'payout' ? payoutCaseSchema.parse(answer.body) : withdrawalSchema.parse(answer.body);
      expect(shown).toMatchObject({ status: 'pending', awaitingLedger: true, holdJournalEntryId: null });
      return {
        flow: request.flow,
        id: shown.id,
        amount: shown.amount,
        fee: 'fee' in shown ? shown.fee : '0.00',
        action: index % 2 === 0 ? 'approve' : 'reject',
        key: `idem-${randomUUID()}`,
      };
    });

    for (const each of cases) {
      expect((await send(tenantId, each.flow, 'GET', each.flow.read(each.id))).body).toMatchObject({
        status: 'pending',
        awaitingLedger: true,
      });
      // With the key the client will retry under, and without one: neither is remembered as final.
      for (const key of [each.key, undefined]) {
        const refused = await send(tenantId, each.flow, 'POST', each.flow.decide(each.id, each.action), {
          body: decisionBody(checker, each.action),
          ...(key ? { key } : {}),
        });
        expect(status(refused)).toBe('409 CASE_HOLD_IN_PROGRESS');
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(errorBodySchema.parse(refused.body).error.details).toMatchObject({ status: 'pending', awaitingLedger: true });
      }
    }
  } finally {
    await harness.ledger.restart();
  }

  // Each case's decision (under the key refused before) races a rival decision: exactly one wins.
  const outcomes = await Promise.all(
    cases.map(async (each) => {
      const rival: Action = each.action === 'approve' ? 'reject' : 'approve';
      const rivalKey = `idem-${randomUUID()}`;
      const [mine, theirs] = await Promise.all([
        decideWhenHeld(tenantId, checker, each, each.action, each.key),
        decideWhenHeld(tenantId, checker, each, rival, rivalKey),
      ]);
      const won = [mine, theirs].filter((answer) => answer.status === 200 || answer.status === 202);
      expect(won).toHaveLength(1);
      const loser = won[0] === mine ? theirs : mine;
      expect(status(loser)).toBe('409 CASE_NOT_PENDING');
      const winner = won[0] as HttpResult;
      return { each, winner, winnerKey: winner === mine ? each.key : rivalKey, winnerAction: winner === mine ? each.action : rival };
    }),
  );

  for (const { each, winner, winnerKey, winnerAction } of outcomes) {
    expect(winner.body).toMatchObject({
      status: winnerAction === 'approve' ? 'approved' : 'rejected',
      awaitingLedger: winner.status === 202,
    });
    const final = await waitFor(
      async () => {
        const read = await send(tenantId, each.flow, 'GET', each.flow.read(each.id));
        return read.body.awaitingLedger ? undefined : read.body;
      },
      { what: `the decision on ${each.id} to post` },
    );
    expect(final).toMatchObject({ status: winner.body.status, decisionJournalEntryId: expect.stringMatching(/^je_/) });
    // The key answers as it did, never a second decision.
    const replay = await send(tenantId, each.flow, 'POST', each.flow.decide(each.id, winnerAction), {
      body: decisionBody(checker, winnerAction),
      key: winnerKey,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect({ status: replay.status, body: replay.body }).toEqual({ status: winner.status, body: winner.body });
  }

  // The journal: every case held once and settled or released once, as decided.
  const entries: Array<{ reference_id: string; kind: string }> = await harness.ledger
    .db('journal_entries')
    .whereIn(
      'reference_id',
      cases.map((each) => each.id),
    )
    .orderBy('seq')
    .select('reference_id', 'kind');
  for (const { each, winnerAction } of outcomes) {
    const kinds = entries.filter((entry) => entry.reference_id === each.id).map((entry) => entry.kind);
    expect(kinds).toEqual([`${each.flow.kind}_hold`, `${each.flow.kind}_${winnerAction === 'approve' ? 'settle' : 'release'}`]);
  }

  // The balances: what left is exactly what was approved, and nothing is left in suspense.
  const approved = (kind: Flow['kind']) =>
    outcomes.filter((outcome) => outcome.each.flow.kind === kind && outcome.winnerAction === 'approve').map((outcome) => outcome.each);
  const sum = (values: string[]) => values.reduce((total, value) => total.plus(value), new BigNumber(0));
  const paidOut = sum(approved('payout').flatMap((each) => [each.amount, each.fee]));
  const withdrawn = sum(approved('withdrawal').map((each) => each.amount));
  const accounts: Array<{ name: string; balance: string }> = await harness.ledger
    .db('accounts')
    .where({ tenant_id: tenantId, environment: 'live', currency_code: 'USD' })
    .whereIn('name', [`wallet:${wallet.ownerId}`, 'suspense', 'payout-clearing', 'revenue:fees'])
    .select('name', 'balance');
  const balances = Object.fromEntries(
    accounts.map((row) => [row.name === `wallet:${wallet.ownerId}` ? 'wallet' : row.name, formatAmount(row.balance, 'USD')]),
  );
  const fees = sum(approved('payout').map((each) => each.fee));
  expect(balances).toEqual({
    wallet: new BigNumber('1000.00').minus(paidOut).toFixed(2),
    suspense: '0.00',
    'payout-clearing': sum(approved('payout').map((each) => each.amount))
      .plus(withdrawn)
      .toFixed(2),
    'revenue:fees': new BigNumber('100.00').plus(fees).minus(withdrawn).toFixed(2),
  });
});
