import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import { errorBodySchema, formatAmount, journalEntrySchema, payoutCasePageSchema, payoutCaseSchema, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
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
 * Real: PostgreSQL, RabbitMQ, the payments service over HTTP, the ledger beside it and identity,
 * which answers for the team members who request and decide. Tenants are created in identity and
 * published to payments and the ledger as identity's events; wallets are funded by deposit
 * commands sent straight to the ledger.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;

beforeAll(async () => {
  identity = await startIdentity();
  // Delivery is off: these cases stay approved; payout-rails.suite.ts covers what follows approval.
  harness = await startLedgerBackedHarness({
    IDENTITY_URL: identity.url,
    PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: '3000',
    PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000',
    PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '0',
  });
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

interface Tenant {
  tenantId: string;
  maker: string;
  checker: string;
  observer: string;
}

async function addMember(tenantId: string, orgRole: string): Promise<string> {
  const response = await fetch(`${identity.url}/v1/team`, {
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

/** A tenant with a payout fee (1.00 + 1 %, a quarter of it the platform's) and three members. */
async function newTenant(): Promise<Tenant> {
  const tenantId = await identity.createTenant({ allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' });
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
  await publishedDefault(
    harness,
    tenantId,
    [{ transactionType: 'payout', currencyCode: 'USD', flatFee: '1.00', percentageFee: '1' }],
    2500,
  );
  return {
    tenantId,
    maker: await addMember(tenantId, 'operator'),
    checker: await addMember(tenantId, 'approver'),
    observer: await addMember(tenantId, 'observer'),
  };
}

function call(
  tenant: Tenant,
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; actor?: string } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (options.key !== null && method === 'POST') headers['Idempotency-Key'] = options.key ?? `idem-${randomUUID()}`;
  const token = tenantToken(tenant.tenantId, { actor: options.actor ? { type: 'member', id: options.actor } : null });
  return harness.request(method, path, { token, headers, ...(options.body !== undefined ? { body: options.body } : {}) });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

async function fundedWallet(tenant: Tenant, amount: string): Promise<WalletRef> {
  const created = await call(tenant, 'POST', '/v1/wallets', {
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
    key: null,
  });
  expect(created.status).toBe(201);
  const wallet = walletSchema.parse(created.body);
  expect((await harness.ledger.commands.request(depositCommand(wallet, amount))).status).toBe('posted');
  return wallet;
}

function requestPayout(tenant: Tenant, wallet: WalletRef, amount: string, key?: string): Promise<HttpResult> {
  const body = {
    walletId: wallet.id,
    amount,
    currencyCode: 'USD',
    payoutMethod: 'momo',
    destination: { phoneNumber: '+256700000001', network: 'mtn' },
    requestedBy: tenant.maker,
    narration: 'supplier',
  };
  return call(tenant, 'POST', '/v1/payouts', { body, ...(key !== undefined ? { key } : {}) });
}

/** Balances by account name, in each account's normal direction, as the ledger holds them. */
async function balances(tenant: Tenant, wallet: WalletRef): Promise<Record<string, string>> {
  const rows: Array<{ name: string; balance: string }> = await harness.ledger
    .db('accounts')
    .where({ tenant_id: tenant.tenantId, environment: 'live', currency_code: 'USD' })
    .whereIn('name', [`wallet:${wallet.ownerId}`, 'suspense', 'payout-clearing', 'revenue:fees', 'platform-commission'])
    .select('name', 'balance');
  return Object.fromEntries(
    rows.map((row) => [row.name === `wallet:${wallet.ownerId}` ? 'wallet' : row.name, formatAmount(row.balance, 'USD')]),
  );
}

async function entryLines(tenant: Tenant, journalEntryId: string) {
  const response = await fetch(`${harness.env.LEDGER_URL}/v1/journal/${journalEntryId}`, {
    headers: { 'x-internal-token': tenantToken(tenant.tenantId, { scopes: ['ledger:read'] }) },
  });
  expect(response.status).toBe(200);
  const entry = journalEntrySchema.parse(await response.json());
  return {
    kind: entry.kind,
    reference: entry.reference,
    lines: entry.lines.map((line) => [line.direction, line.accountName, line.amount]),
  };
}

async function entriesFor(caseId: string): Promise<string[]> {
  const rows: Array<{ kind: string }> = await harness.ledger
    .db('journal_entries')
    .where({ reference_type: 'payout_case', reference_id: caseId })
    .orderBy('created_at')
    .select('kind');
  return rows.map((row) => row.kind);
}

async function decided(tenant: Tenant, caseId: string) {
  return waitFor(
    async () => {
      const read = await call(tenant, 'GET', `/v1/payouts/cases/${caseId}`);
      return read.body?.decisionJournalEntryId ? payoutCaseSchema.parse(read.body) : undefined;
    },
    { what: `the decision entry of ${caseId}` },
  );
}

async function heldCase(tenant: Tenant, wallet: WalletRef, amount = '50.00') {
  const created = await requestPayout(tenant, wallet, amount);
  expect(created.status).toBe(201);
  return payoutCaseSchema.parse(created.body);
}

describe('POST /v1/payouts', () => {
  it('opens a pending case and holds exactly amount plus fee in suspense', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const key = `idem-${randomUUID()}`;
    const created = await requestPayout(tenant, wallet, '50.00', key);
    expect(created.status).toBe(201);
    expect(payoutCaseSchema.parse(created.body)).toEqual({
      id: expect.stringMatching(/^pc_[0-9A-Z]{26}$/),
      walletId: wallet.id,
      amount: '50.00',
      currencyCode: 'USD',
      fee: '1.50',
      payoutMethod: 'momo',
      destination: { phoneNumber: '+256700000001', network: 'mtn' },
      narration: 'supplier',
      requestedBy: tenant.maker,
      status: 'pending',
      holdJournalEntryId: expect.stringMatching(/^je_/),
      failureCode: null,
      approvalsRequired: 1,
      approverRole: null,
      approvals: [],
      decidedBy: null,
      decidedAt: null,
      rejectionReason: null,
      decisionJournalEntryId: null,
      railReference: null,
      railFailureReason: null,
      outcomeJournalEntryId: null,
      awaitingLedger: false,
      createdAt: expect.any(String),
    });
    expect(await entryLines(tenant, created.body.holdJournalEntryId)).toEqual({
      kind: 'payout_hold',
      reference: { type: 'payout_case', id: created.body.id },
      lines: [
        ['DR', `wallet:${wallet.ownerId}`, '51.50'],
        ['CR', 'suspense', '51.50'],
      ],
    });
    expect(await balances(tenant, wallet)).toEqual({
      wallet: '48.50',
      suspense: '51.50',
      'payout-clearing': '0.00',
      'revenue:fees': '0.00',
      'platform-commission': '0.00',
    });

    // The retry replays the answer; nothing is held twice.
    const replay = await requestPayout(tenant, wallet, '50.00', key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created.body);
    expect(await entriesFor(created.body.id)).toEqual(['payout_hold']);
  });

  it('refuses a payout over the balance with 422 INSUFFICIENT_FUNDS, holds nothing and leaves no pending case', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '50.00');
    const error = expectError(await requestPayout(tenant, wallet, '49.00'), 422, 'INSUFFICIENT_FUNDS');
    const caseId = error.details?.payoutCaseId as string;
    const read = await call(tenant, 'GET', `/v1/payouts/cases/${caseId}`);
    expect(read.body).toMatchObject({ status: 'failed', failureCode: 'INSUFFICIENT_FUNDS', holdJournalEntryId: null });
    expect(await entriesFor(caseId)).toEqual([]);
    expect((await balances(tenant, wallet)).wallet).toBe('50.00');
    expect((await balances(tenant, wallet)).suspense).toBe('0.00');
    expect((await call(tenant, 'GET', '/v1/payouts/cases?status=pending')).body.data).toEqual([]);
  });

  it('refuses a payout from a frozen wallet with 422 WALLET_FROZEN and holds nothing', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    expect((await call(tenant, 'POST', `/v1/wallets/${wallet.id}/freeze`, { body: { reason: 'investigation' }, key: null })).status).toBe(
      200,
    );
    expectError(await requestPayout(tenant, wallet, '10.00'), 422, 'WALLET_FROZEN');
    expect((await call(tenant, 'GET', '/v1/payouts/cases?status=pending')).body.data).toEqual([]);
    expect(await balances(tenant, wallet)).toMatchObject({ wallet: '100.00', suspense: '0.00' });
  });

  it('refuses a requester who is not an active member with payouts:create (403 ACTOR_NOT_PERMITTED) and a body actor unlike the header (403 ACTOR_MISMATCH)', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const body = {
      walletId: wallet.id,
      amount: '5.00',
      currencyCode: 'USD',
      payoutMethod: 'bank',
      destination: { bankCode: 'stanbic', accountNumber: '0012', accountName: 'Acme' },
    };
    expectError(await call(tenant, 'POST', '/v1/payouts', { body: { ...body, requestedBy: tenant.checker } }), 403, 'ACTOR_NOT_PERMITTED');
    expectError(await call(tenant, 'POST', '/v1/payouts', { body: { ...body, requestedBy: 'usr_nobody' } }), 403, 'ACTOR_NOT_PERMITTED');
    expectError(
      await call(tenant, 'POST', '/v1/payouts', { body: { ...body, requestedBy: tenant.maker }, actor: tenant.observer }),
      403,
      'ACTOR_MISMATCH',
    );
    expectError(
      await call(tenant, 'POST', '/v1/payouts', { body: { ...body, requestedBy: tenant.maker }, key: null }),
      400,
      'IDEMPOTENCY_KEY_REQUIRED',
    );
    expect((await call(tenant, 'GET', '/v1/payouts/cases')).body.data).toEqual([]);
  });
});

describe('POST /v1/payouts/{id}/approve', () => {
  it('settles suspense into payout clearing and charges the fee with its commission split, in exactly the decided lines', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const held = await heldCase(tenant, wallet);
    const key = `idem-${randomUUID()}`;
    const approved = await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, {
      body: { actorId: tenant.checker },
      key,
      actor: tenant.checker,
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: held.id, status: 'approved', decidedBy: tenant.checker, rejectionReason: null });

    const settled = await decided(tenant, held.id);
    // fee 1.00 + 1 % of 50.00 = 1.50; commission 1.50 x 25 % = 0.375, half-up 0.38.
    expect(await entryLines(tenant, settled.decisionJournalEntryId as string)).toEqual({
      kind: 'payout_settle',
      reference: { type: 'payout_case', id: held.id },
      lines: [
        ['DR', 'suspense', '51.50'],
        ['CR', 'payout-clearing', '50.00'],
        ['CR', 'revenue:fees', '1.50'],
        ['DR', 'revenue:fees', '0.38'],
        ['CR', 'platform-commission', '0.38'],
      ],
    });
    expect(await balances(tenant, wallet)).toEqual({
      wallet: '48.50',
      suspense: '0.00',
      'payout-clearing': '50.00',
      'revenue:fees': '1.12',
      'platform-commission': '0.38',
    });

    // A retry with the same key replays; a distinct approval or a rejection now is 409.
    const replay = await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, {
      body: { actorId: tenant.checker },
      key,
      actor: tenant.checker,
    });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(approved.body);
    expectError(
      await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.checker } }),
      409,
      'CASE_NOT_PENDING',
    );
    expectError(
      await call(tenant, 'POST', `/v1/payouts/${held.id}/reject`, { body: { actorId: tenant.checker, reason: 'late' } }),
      409,
      'CASE_NOT_PENDING',
    );
    expect(await entriesFor(held.id)).toEqual(['payout_hold', 'payout_settle']);
  });

  it('forbids the requester to approve their own case (403 SELF_APPROVAL_FORBIDDEN)', async () => {
    const tenant = await newTenant();
    const held = await heldCase(tenant, await fundedWallet(tenant, '100.00'));
    expectError(
      await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.maker } }),
      403,
      'SELF_APPROVAL_FORBIDDEN',
    );
    expect((await call(tenant, 'GET', `/v1/payouts/cases/${held.id}`)).body.status).toBe('pending');
  });

  it('refuses an approver whose role does not grant payouts:approve (403 ACTOR_NOT_PERMITTED), and a body actor unlike the header (403 ACTOR_MISMATCH)', async () => {
    const tenant = await newTenant();
    const held = await heldCase(tenant, await fundedWallet(tenant, '100.00'));
    expectError(
      await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.observer } }),
      403,
      'ACTOR_NOT_PERMITTED',
    );
    expectError(
      await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.checker }, actor: tenant.observer }),
      403,
      'ACTOR_MISMATCH',
    );
    expect(await entriesFor(held.id)).toEqual(['payout_hold']);
  });

  it('leaves exactly one decision and one ledger entry for it under 20 concurrent approvals and rejections', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const held = await heldCase(tenant, wallet);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        index % 2 === 0
          ? call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.checker } })
          : call(tenant, 'POST', `/v1/payouts/${held.id}/reject`, { body: { actorId: tenant.checker, reason: 'duplicate' } }),
      ),
    );
    const statuses = results.map((result) => `${result.status} ${result.body?.error?.code ?? result.body.status}`);
    expect(statuses.filter((status) => status.startsWith('200'))).toHaveLength(1);
    expect(statuses.filter((status) => status === '409 CASE_NOT_PENDING')).toHaveLength(19);
    const final = await decided(tenant, held.id);
    const kinds = await entriesFor(held.id);
    expect(kinds).toEqual(['payout_hold', final.status === 'approved' ? 'payout_settle' : 'payout_release']);
    expect((await balances(tenant, wallet)).suspense).toBe('0.00');
  });
});

describe('POST /v1/payouts/{id}/reject', () => {
  it('releases exactly amount plus fee back to the wallet', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const held = await heldCase(tenant, wallet);
    const rejected = await call(tenant, 'POST', `/v1/payouts/${held.id}/reject`, {
      body: { actorId: tenant.checker, reason: 'unknown supplier' },
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', decidedBy: tenant.checker, rejectionReason: 'unknown supplier' });
    const released = await decided(tenant, held.id);
    expect(await entryLines(tenant, released.decisionJournalEntryId as string)).toEqual({
      kind: 'payout_release',
      reference: { type: 'payout_case', id: held.id },
      lines: [
        ['DR', 'suspense', '51.50'],
        ['CR', `wallet:${wallet.ownerId}`, '51.50'],
      ],
    });
    expect(await balances(tenant, wallet)).toEqual({
      wallet: '100.00',
      suspense: '0.00',
      'payout-clearing': '0.00',
      'revenue:fees': '0.00',
      'platform-commission': '0.00',
    });
    expectError(
      await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.checker } }),
      409,
      'CASE_NOT_PENDING',
    );
  });
});

describe('a decision answers once the ledger has moved the money', () => {
  async function walletBalance(tenant: Tenant, wallet: WalletRef): Promise<string> {
    const read = await call(tenant, 'GET', `/v1/wallets/${wallet.id}`);
    expect(read.status).toBe(200);
    return walletSchema.parse(read.body).balance;
  }

  it('answers 200 with the settle or release posted, and the case and the wallet read right after show exactly that', async () => {
    const tenant = await newTenant();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5_000 }),
        fc.constantFrom('approve' as const, 'reject' as const),
        async (cents, action) => {
          const wallet = await fundedWallet(tenant, '100.00');
          const held = await heldCase(tenant, wallet, new BigNumber(cents).shiftedBy(-2).toFixed(2));
          const body = action === 'approve' ? { actorId: tenant.checker } : { actorId: tenant.checker, reason: 'not now' };
          const answer = await call(tenant, 'POST', `/v1/payouts/${held.id}/${action}`, { body });
          expect(answer.status).toBe(200);
          expect(answer.body).toMatchObject({
            status: action === 'approve' ? 'approved' : 'rejected',
            decisionJournalEntryId: expect.stringMatching(/^je_/),
          });
          // No waiting: the answer came after the ledger posted, and the reads say the same.
          const expected = action === 'approve' ? new BigNumber('100.00').minus(held.amount).minus(held.fee).toFixed(2) : '100.00';
          expect(await walletBalance(tenant, wallet)).toBe(expected);
          expect([held.awaitingLedger, payoutCaseSchema.parse(answer.body).awaitingLedger]).toEqual([false, false]);
          expect((await call(tenant, 'GET', `/v1/payouts/cases/${held.id}`)).body).toEqual(answer.body);
          expect(await entriesFor(held.id)).toEqual(['payout_hold', action === 'approve' ? 'payout_settle' : 'payout_release']);
        },
      ),
      { numRuns: 6 },
    );
  });

  it('answers 202 past the deadline, replays that answer, and reads the decision as awaiting the ledger until its entry posted', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const held = await heldCase(tenant, wallet, '10.00');
    const key = `idem-${randomUUID()}`;
    const body = { actorId: tenant.checker, reason: 'unknown supplier' };
    await harness.ledger.stop();
    try {
      const accepted = await call(tenant, 'POST', `/v1/payouts/${held.id}/reject`, { body, key });
      expect(accepted.status).toBe(202);
      expect(payoutCaseSchema.parse(accepted.body)).toMatchObject({
        status: 'rejected',
        awaitingLedger: true,
        decisionJournalEntryId: null,
      });
      expect((await call(tenant, 'GET', `/v1/payouts/cases/${held.id}`)).body).toEqual(accepted.body);
      const replay = await call(tenant, 'POST', `/v1/payouts/${held.id}/reject`, { body, key });
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(accepted.body);
      // Decided, so final as a decision: another one is refused for good.
      expectError(
        await call(tenant, 'POST', `/v1/payouts/${held.id}/approve`, { body: { actorId: tenant.checker } }),
        409,
        'CASE_NOT_PENDING',
      );
    } finally {
      await harness.ledger.restart();
    }
    const released = await waitFor(
      async () => {
        const read = payoutCaseSchema.parse((await call(tenant, 'GET', `/v1/payouts/cases/${held.id}`)).body);
        return read.awaitingLedger ? undefined : read;
      },
      { what: 'the release to post' },
    );
    expect(released).toMatchObject({ status: 'rejected', decisionJournalEntryId: expect.stringMatching(/^je_/) });
    expect(await walletBalance(tenant, wallet)).toBe('100.00');
    expect(await entriesFor(held.id)).toEqual(['payout_hold', 'payout_release']);
  });
});

describe('GET /v1/payouts/cases', () => {
  it('lists cases newest first in cursor pages, filtered by status and wallet, and hides them from another tenant', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '100.00');
    const other = await fundedWallet(tenant, '100.00');
    const first = await heldCase(tenant, wallet, '1.00');
    const second = await heldCase(tenant, wallet, '2.00');
    const third = await heldCase(tenant, other, '3.00');
    await call(tenant, 'POST', `/v1/payouts/${first.id}/reject`, { body: { actorId: tenant.checker, reason: 'test' } });

    const page1 = payoutCasePageSchema.parse((await call(tenant, 'GET', '/v1/payouts/cases?limit=2')).body);
    expect(page1.data.map((each) => each.id)).toEqual([third.id, second.id]);
    const page2 = payoutCasePageSchema.parse(
      (await call(tenant, 'GET', `/v1/payouts/cases?limit=2&cursor=${encodeURIComponent(page1.nextCursor as string)}`)).body,
    );
    expect(page2).toMatchObject({ data: [{ id: first.id }], nextCursor: null });
    expect((await call(tenant, 'GET', '/v1/payouts/cases?status=pending')).body.data.map((each: { id: string }) => each.id)).toEqual([
      third.id,
      second.id,
    ]);
    expect((await call(tenant, 'GET', `/v1/payouts/cases?walletId=${wallet.id}`)).body.data.map((each: { id: string }) => each.id)).toEqual(
      [second.id, first.id],
    );

    const intruder = await newTenant();
    expectError(await call(intruder, 'GET', `/v1/payouts/cases/${second.id}`), 404, 'NOT_FOUND');
    expectError(
      await call(intruder, 'POST', `/v1/payouts/${second.id}/approve`, { body: { actorId: intruder.checker } }),
      404,
      'NOT_FOUND',
    );
    expect((await call(intruder, 'GET', '/v1/payouts/cases')).body.data).toEqual([]);
  });
});
