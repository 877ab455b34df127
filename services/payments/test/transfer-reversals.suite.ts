import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import {
  errorBodySchema,
  journalEntrySchema,
  reconciliationFullRunSchema,
  reconciliationResultSchema,
  statementPageSchema,
  transferReversalPageSchema,
  transferReversalSchema,
  transferSchema,
  walletSchema,
} from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { publishedDefault } from './fees-support';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  newTenantId,
  startLedgerBackedHarness,
  tenantToken,
  type WalletRef,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments over HTTP with the ledger (and treasury, which
 * reconciliation asks) beside it. Tenants arrive as identity's events; wallets are funded by
 * entries sent straight to the ledger; transfers are made through the API.
 */
let harness: LedgerBackedHarness;

beforeAll(async () => {
  harness = await startLedgerBackedHarness(
    { PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: '5000', PAYMENTS_LEDGER_READ_TIMEOUT_MS: '5000' },
    { treasury: true },
  );
});

afterAll(async () => {
  await harness?.close();
});

interface Caller {
  tenantId: string;
}

/** A tenant whose transfers pay 1.00 + 1.5 %, of which the platform takes 20 %. */
async function newCaller(): Promise<Caller> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
  await publishedDefault(
    harness,
    tenantId,
    [{ transactionType: 'transfer', currencyCode: 'USD', flatFee: '1.00', percentageFee: '1.5' }],
    2000,
  );
  return { tenantId };
}

function call(caller: Caller, method: string, path: string, options: { body?: unknown; key?: string } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = method === 'POST' ? { 'Idempotency-Key': options.key ?? `idem-${randomUUID()}` } : {};
  const token = tenantToken(caller.tenantId, { scopes: ['tenant:manage', 'analytics:read'] });
  return harness.request(method, path, { token, headers, ...(options.body !== undefined ? { body: options.body } : {}) });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

async function fundedWallet(caller: Caller, amount: string): Promise<WalletRef> {
  const created = await call(caller, 'POST', '/v1/wallets', {
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
  });
  expect(created.status).toBe(201);
  const wallet = walletSchema.parse(created.body);
  if (new BigNumber(amount).gt(0)) await seed(wallet, amount);
  return wallet;
}

/** Money in, straight to the ledger: its entry names no record of payments', so reconciliation's check 3 does not look for one. */
async function seed(wallet: WalletRef, amount: string): Promise<void> {
  const command = { ...depositCommand(wallet, amount), reference: { type: 'test_seed', id: `seed_${randomUUID()}` } };
  expect((await harness.ledger.commands.request(command)).status).toBe('posted');
}

async function transfer(caller: Caller, from: WalletRef, to: WalletRef, amount: string) {
  const sent = await call(caller, 'POST', '/v1/transfers', {
    body: { fromWalletId: from.id, toWalletId: to.id, amount, currencyCode: 'USD' },
  });
  expect(sent.status).toBe(201);
  return transferSchema.parse(sent.body);
}

function reverse(caller: Caller, transferId: string, body: Record<string, unknown>, key?: string): Promise<HttpResult> {
  return call(caller, 'POST', `/v1/transfers/${transferId}/reversals`, {
    body: { reason: 'sent by mistake', ...body },
    ...(key !== undefined ? { key } : {}),
  });
}

/** A sent transfer of 100.00 (fee 2.50, commission 0.50) from a wallet funded with 200.00. */
async function sentTransfer(caller: Caller) {
  const sender = await fundedWallet(caller, '200.00');
  const receiver = await fundedWallet(caller, '0');
  const sent = await transfer(caller, sender, receiver, '100.00');
  expect(sent.fee).toBe('2.50');
  return { sender, receiver, sent };
}

/** The balance payments shows, after checking it is what the ledger's statement of the wallet adds up to. */
async function balanceOf(caller: Caller, wallet: WalletRef): Promise<string> {
  const read = walletSchema.parse((await call(caller, 'GET', `/v1/wallets/${wallet.id}`)).body);
  const statement = statementPageSchema.parse((await call(caller, 'GET', `/v1/wallets/${wallet.id}/entries?limit=100`)).body);
  const sum = statement.data.reduce(
    (total, line) => (line.direction === 'CR' ? total.plus(line.amount) : total.minus(line.amount)),
    new BigNumber(0),
  );
  expect(sum.toFixed(2)).toBe(read.balance);
  expect(statement.data[0]?.balanceAfter ?? '0.00').toBe(read.balance);
  return read.balance;
}

async function reversalRows(transferId: string): Promise<Array<{ status: string; amount: string }>> {
  return harness.db('transfer_reversals').where({ transfer_id: transferId }).orderBy('seq').select('status', 'amount');
}

async function entriesNaming(type: string, id: string): Promise<number> {
  const [row] = await harness.ledger
    .db('journal_entries')
    .where({ reference_type: type, reference_id: id })
    .count<{ count: string }[]>('* as count');
  return Number(row?.count);
}

async function reconcile(caller: Caller) {
  const answer = await call(caller, 'GET', '/v1/admin/reconciliation');
  expect(answer.status).toBe(200);
  return reconciliationResultSchema.parse(answer.body);
}

/** A full run from zero over the caller's scope, which compares records and entries by digest. */
async function fullRun(caller: Caller) {
  const started = await call(caller, 'POST', '/v1/admin/reconciliation/runs');
  expect(started.status).toBe(202);
  const id = reconciliationFullRunSchema.parse(started.body).id;
  return waitFor(
    async () => {
      const run = reconciliationFullRunSchema.parse((await call(caller, 'GET', `/v1/admin/reconciliation/runs/${id}`)).body);
      return run.state === 'succeeded' || run.state === 'failed' ? run : undefined;
    },
    { what: `full run ${id}`, timeoutMs: 30_000 },
  );
}

describe('POST /v1/transfers/{id}/reversals', () => {
  it('keeps balances, the ledger and reconciliation in step over random transfers and partial reversals, never reversing more than was sent', async () => {
    const caller = await newCaller();
    const attempt = fc.record({ percent: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }), refundFee: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 100, max: 50_000 }),
        fc.array(attempt, { minLength: 1, maxLength: 4 }),
        async (cents, attempts) => {
          const amount = new BigNumber(cents).shiftedBy(-2);
          const sender = await fundedWallet(caller, '1000.00');
          const receiver = await fundedWallet(caller, '0');
          const sent = await transfer(caller, sender, receiver, amount.toFixed(2));
          let reversed = new BigNumber(0);
          let feeBack = new BigNumber(0);
          for (const { percent, refundFee } of attempts) {
            const asked =
              percent === undefined
                ? undefined
                : BigNumber.max(amount.times(percent).div(100).decimalPlaces(2, BigNumber.ROUND_DOWN), '0.01');
            const answer = await reverse(caller, sent.id, { ...(asked ? { amount: asked.toFixed(2) } : {}), refundFee });
            const left = amount.minus(reversed);
            if (left.isZero() || (asked && asked.gt(left))) {
              expect(expectError(answer, 422, 'REVERSAL_EXCEEDS_TRANSFER').details).toEqual({
                transferId: sent.id,
                reversible: left.toFixed(2),
              });
            } else if (refundFee && feeBack.gt(0)) {
              expectError(answer, 422, 'FEE_ALREADY_REFUNDED');
            } else {
              expect(answer.status).toBe(201);
              const reversal = transferReversalSchema.parse(answer.body);
              expect(reversal).toMatchObject({
                transferId: sent.id,
                amount: (asked ?? left).toFixed(2),
                feeRefunded: refundFee ? sent.fee : '0.00',
                status: 'completed',
              });
              reversed = reversed.plus(reversal.amount);
              feeBack = feeBack.plus(reversal.feeRefunded);
            }
          }
          expect(reversed.lte(amount)).toBe(true);
          expect(await balanceOf(caller, receiver)).toBe(amount.minus(reversed).toFixed(2));
          expect(await balanceOf(caller, sender)).toBe(
            new BigNumber('1000.00').minus(amount).minus(sent.fee).plus(reversed).plus(feeBack).toFixed(2),
          );
          const row = await harness.db('transfers').where({ id: sent.id }).first('reversed_amount', 'refunded_fee');
          expect([new BigNumber(row.reversed_amount).toFixed(2), new BigNumber(row.refunded_fee).toFixed(2)]).toEqual([
            reversed.toFixed(2),
            feeBack.toFixed(2),
          ]);
        },
      ),
      { numRuns: 8 },
    );
    const result = await reconcile(caller);
    expect(result.checks.map((each) => `${each.name} ${each.status} ${each.mismatches.length}`)).toEqual([
      'balances ok 0',
      'entries_balance ok 0',
      'business_records ok 0',
      'bank_evidence ok 0',
    ]);
  });

  it('posts the mirror of the transfer, naming its entry, with the fee and commission lines undone once', async () => {
    const caller = await newCaller();
    const { sender, receiver, sent } = await sentTransfer(caller);
    const answer = await reverse(caller, sent.id, { amount: '40.00', refundFee: true });
    expect(answer.status).toBe(201);
    const reversal = transferReversalSchema.parse(answer.body);
    expect(reversal).toEqual({
      id: expect.stringMatching(/^trv_[0-9A-Z]{26}$/),
      transferId: sent.id,
      amount: '40.00',
      currencyCode: 'USD',
      feeRefunded: '2.50',
      reason: 'sent by mistake',
      status: 'completed',
      journalEntryId: expect.stringMatching(/^je_/),
      failureCode: null,
      createdAt: expect.any(String),
    });
    const response = await fetch(`${harness.env.LEDGER_URL}/v1/journal/${reversal.journalEntryId}`, {
      headers: { 'x-internal-token': tenantToken(caller.tenantId, { scopes: ['ledger:read'] }) },
    });
    const entry = journalEntrySchema.parse(await response.json());
    expect(entry).toMatchObject({
      kind: 'transfer_reversal',
      reversesEntryId: sent.journalEntryId,
      reference: { type: 'transfer_reversal', id: reversal.id },
    });
    const lines = entry.lines.map((line) => ({ direction: line.direction, name: line.accountName, amount: line.amount }));
    expect(lines.map((line) => `${line.direction} ${line.name} ${new BigNumber(line.amount).toFixed(2)}`)).toEqual([
      `CR wallet:${sender.ownerId} 40.00`,
      `CR wallet:${sender.ownerId} 2.50`,
      `DR wallet:${receiver.ownerId} 40.00`,
      'DR revenue:fees 2.50',
      'CR revenue:fees 0.50',
      'DR platform-commission 0.50',
    ]);
    expectError(await reverse(caller, sent.id, { amount: '10.00', refundFee: true }), 422, 'FEE_ALREADY_REFUNDED');
    // The rest, with amount omitted.
    const rest = await reverse(caller, sent.id, {});
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: '60.00', feeRefunded: '0.00' });
    expect([await balanceOf(caller, sender), await balanceOf(caller, receiver)]).toEqual(['200.00', '0.00']);
  });

  it('lets exactly 3 of 10 concurrent reversals of 30 % through', async () => {
    const caller = await newCaller();
    const { receiver, sent } = await sentTransfer(caller);
    const answers = await Promise.all(Array.from({ length: 10 }, () => reverse(caller, sent.id, { amount: '30.00' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 422, 422, 422, 422, 422, 422, 422]);
    for (const refused of answers.filter((answer) => answer.status === 422))
      expect(expectError(refused, 422, 'REVERSAL_EXCEEDS_TRANSFER').details).toMatchObject({ reversible: '10.00' });
    expect(await reversalRows(sent.id)).toHaveLength(3);
    expect(await balanceOf(caller, receiver)).toBe('10.00');
    expect(new BigNumber((await harness.db('transfers').where({ id: sent.id }).first('reversed_amount')).reversed_amount).toFixed(2)).toBe(
      '90.00',
    );
  });

  it('answers a replayed Idempotency-Key with the same reversal, posted once, even when nothing is left to reverse', async () => {
    const caller = await newCaller();
    const { receiver, sent } = await sentTransfer(caller);
    const key = `idem-${randomUUID()}`;
    const first = await reverse(caller, sent.id, {}, key);
    expect(first.status).toBe(201);
    expect(first.body.amount).toBe('100.00');
    const again = await reverse(caller, sent.id, {}, key);
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([201, first.text, 'true']);
    expect(await entriesNaming('transfer_reversal', first.body.id)).toBe(1);
    expect(await reversalRows(sent.id)).toHaveLength(1);
    expect(await balanceOf(caller, receiver)).toBe('0.00');
    // A refusal is remembered as well.
    const refusalKey = `idem-${randomUUID()}`;
    const refused = await reverse(caller, sent.id, {}, refusalKey);
    expectError(refused, 422, 'REVERSAL_EXCEEDS_TRANSFER');
    expect((await reverse(caller, sent.id, {}, refusalKey)).text).toBe(refused.text);
  });

  it("answers 404 for another tenant's transfer, and 409 for a transfer that did not complete", async () => {
    const owner = await newCaller();
    const { sent } = await sentTransfer(owner);
    const other = await newCaller();
    expectError(await reverse(other, sent.id, {}), 404, 'TRANSFER_NOT_FOUND');
    expectError(await call(other, 'GET', `/v1/transfers/${sent.id}/reversals`), 404, 'TRANSFER_NOT_FOUND');
    expect(await reversalRows(sent.id)).toHaveLength(0);

    const poor = await fundedWallet(owner, '1.00');
    const failed = await call(owner, 'POST', '/v1/transfers', {
      body: { fromWalletId: poor.id, toWalletId: (await fundedWallet(owner, '0')).id, amount: '50.00', currencyCode: 'USD' },
    });
    expectError(failed, 422, 'INSUFFICIENT_FUNDS');
    expect(
      expectError(await reverse(owner, failed.body.error.details.transferId, {}), 409, 'TRANSFER_NOT_REVERSIBLE').details,
    ).toMatchObject({ status: 'failed' });
  });

  it('refuses an over-reversal with 422 and changes nothing', async () => {
    const caller = await newCaller();
    const { sender, receiver, sent } = await sentTransfer(caller);
    expect((await reverse(caller, sent.id, { amount: '60.00' })).status).toBe(201);
    const before = [await balanceOf(caller, sender), await balanceOf(caller, receiver)];
    expect(expectError(await reverse(caller, sent.id, { amount: '40.01' }), 422, 'REVERSAL_EXCEEDS_TRANSFER').details).toEqual({
      transferId: sent.id,
      reversible: '40.00',
    });
    expect([await balanceOf(caller, sender), await balanceOf(caller, receiver)]).toEqual(before);
    expect(await reversalRows(sent.id)).toHaveLength(1);
    expect(new BigNumber((await harness.db('transfers').where({ id: sent.id }).first('reversed_amount')).reversed_amount).toFixed(2)).toBe(
      '60.00',
    );
  });

  it('takes the amount as a JSON number or a decimal string, and refuses one off the currency scale with 400 INVALID_AMOUNT, changing nothing', async () => {
    const caller = await newCaller();
    const { sent } = await sentTransfer(caller);
    const byNumber = await reverse(caller, sent.id, { amount: 12.5 });
    expect(byNumber.status).toBe(201);
    expect(byNumber.body.amount).toBe('12.50');
    expectError(await reverse(caller, sent.id, { amount: 1.005 }), 400, 'INVALID_AMOUNT');
    expectError(await reverse(caller, sent.id, { amount: 'twelve' }), 400, 'INVALID_AMOUNT');
    expect((await reverse(caller, sent.id, { amount: '7.50' })).status).toBe(201);
    expect((await reversalRows(sent.id)).map((row) => new BigNumber(row.amount).toFixed(2))).toEqual(['12.50', '7.50']);
  });

  it('gives the claim back when the ledger refuses the reversal (the receiver spent the money)', async () => {
    const caller = await newCaller();
    const { receiver, sent } = await sentTransfer(caller);
    await transfer(caller, receiver, await fundedWallet(caller, '0'), '90.00');
    const refused = await reverse(caller, sent.id, { amount: '50.00' });
    const error = expectError(refused, 422, 'INSUFFICIENT_FUNDS');
    expect(await reversalRows(sent.id)).toEqual([{ status: 'failed', amount: '50.00' }]);
    expect(new BigNumber((await harness.db('transfers').where({ id: sent.id }).first('reversed_amount')).reversed_amount).toFixed(2)).toBe(
      '0.00',
    );
    expect(error.details).toMatchObject({ transferId: sent.id, reversalId: expect.stringMatching(/^trv_/) });

    // What the receiver still holds can be reversed, all of the transfer once it holds it again.
    expect((await reverse(caller, sent.id, { amount: '7.65' })).status).toBe(201);
    await seed(receiver, '100.00');
    const rest = await reverse(caller, sent.id, {});
    expect(rest.status).toBe(201);
    expect(rest.body.amount).toBe('92.35');
    const listed = transferReversalPageSchema.parse((await call(caller, 'GET', `/v1/transfers/${sent.id}/reversals?limit=2`)).body);
    expect(listed.data.map((each) => `${each.status} ${each.amount}`)).toEqual(['completed 92.35', 'completed 7.65']);
    const older = transferReversalPageSchema.parse(
      (await call(caller, 'GET', `/v1/transfers/${sent.id}/reversals?limit=2&cursor=${listed.nextCursor as string}`)).body,
    );
    expect(older).toMatchObject({ data: [{ status: 'failed', amount: '50.00', failureCode: 'INSUFFICIENT_FUNDS' }], nextCursor: null });
    expect((await reconcile(caller)).status).toBe('ok');
    expect(await fullRun(caller)).toMatchObject({ state: 'succeeded', status: 'ok' });
  });

  it("holds a pending reversal's claim, and gives it back when the ledger's event refuses it", async () => {
    const caller = await newCaller();
    const { receiver, sent } = await sentTransfer(caller);
    await transfer(caller, receiver, await fundedWallet(caller, '0'), '90.00');
    await harness.ledger.stop();
    let pending: HttpResult;
    try {
      pending = await reverse(caller, sent.id, { amount: '50.00' });
      expect(pending.status).toBe(202);
      expect(pending.body).toMatchObject({ status: 'pending', awaitingLedger: true, journalEntryId: null });
      // Pending counts: only what is left beside it may be reversed meanwhile.
      expect(expectError(await reverse(caller, sent.id, { amount: '50.01' }), 422, 'REVERSAL_EXCEEDS_TRANSFER').details).toMatchObject({
        reversible: '50.00',
      });
    } finally {
      await harness.ledger.restart();
    }
    await waitFor(async () => ((await reversalRows(sent.id))[0]?.status === 'failed' ? true : undefined), {
      what: 'the refused reversal to be recorded',
    });
    expect(new BigNumber((await harness.db('transfers').where({ id: sent.id }).first('reversed_amount')).reversed_amount).toFixed(2)).toBe(
      '0.00',
    );
    expect(await entriesNaming('transfer_reversal', pending.body.id)).toBe(0);
  });

  it('is a mismatch in reconciliation when a reversal record no longer matches its entry', async () => {
    const caller = await newCaller();
    const { sent } = await sentTransfer(caller);
    const reversal = transferReversalSchema.parse((await reverse(caller, sent.id, { amount: '10.00' })).body);
    await harness.db('transfer_reversals').where({ id: reversal.id }).update({ amount: '11.00' });
    const records = (await reconcile(caller)).checks.find((each) => each.name === 'business_records');
    expect(records?.mismatches).toEqual([
      expect.objectContaining({ referenceType: 'transfer_reversal', recordId: reversal.id, problem: 'journal_entry_differs' }),
    ]);
  });
});
