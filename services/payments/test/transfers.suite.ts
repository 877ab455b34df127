import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import BigNumber from 'bignumber.js';
import {
  errorBodySchema,
  journalEntrySchema,
  ledgerPartitionQueues,
  TOPOLOGY,
  transferPageSchema,
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
 * Real: PostgreSQL, RabbitMQ, the payments service over HTTP and the ledger service beside it
 * (stopped and started again where a test needs it silent). Tenants arrive as identity's events,
 * published here; wallets are funded by deposit commands sent straight to the ledger.
 */
let harness: LedgerBackedHarness;
const REPLY_TIMEOUT_MS = 2000;
/** Past every reply timeout here: a command is sent again only when its answer is really lost. */
const RESEND_AFTER_MS = 4000;

beforeAll(async () => {
  harness = await startLedgerBackedHarness({
    PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
    PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000',
    PAYMENTS_LEDGER_REPLY_TIMEOUT_MS: '2000',
    OUTBOX_RESEND_UNANSWERED_AFTER_MS: String(RESEND_AFTER_MS),
  });
});

afterAll(async () => {
  await harness?.close();
});

interface Caller {
  tenantId: string;
  environment: 'test' | 'live';
}

async function newCaller(environment: 'test' | 'live' = 'live'): Promise<Caller> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD', 'KES', 'UGX'] });
  return { tenantId, environment };
}

function call(
  caller: Caller,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; key?: string | null } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (options.key !== null && method === 'POST') headers['Idempotency-Key'] = options.key ?? `idem-${randomUUID()}`;
  return harness.request(method, path, {
    token: tenantToken(caller.tenantId, { environment: caller.environment }),
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : {}),
  });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

async function createWallet(caller: Caller, currencyCode = 'USD'): Promise<WalletRef> {
  const created = await call(caller, 'POST', '/v1/wallets', {
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode },
    key: null,
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

async function fund(wallet: WalletRef, amount: string): Promise<void> {
  const result = await harness.ledger.commands.request(depositCommand(wallet, amount));
  expect(result.status).toBe('posted');
}

async function balanceOf(caller: Caller, wallet: WalletRef): Promise<string> {
  const read = await call(caller, 'GET', `/v1/wallets/${wallet.id}`);
  expect(read.status).toBe(200);
  return read.body.balance as string;
}

function transfer(caller: Caller, body: Record<string, unknown>, key?: string): Promise<HttpResult> {
  return call(caller, 'POST', '/v1/transfers', { body, ...(key !== undefined ? { key } : {}) });
}

/** The transfer a 202 answered, read until the ledger's event has finished it (a 200 read of it). */
function finalTransfer(caller: Caller, pending: HttpResult): Promise<HttpResult> {
  return waitFor(
    async () => {
      const read = await call(caller, 'GET', `/v1/transfers/${pending.body.id as string}`);
      return read.body?.status === 'pending' ? undefined : read;
    },
    { what: `transfer ${pending.body.id as string} to finish` },
  );
}

async function journalEntry(caller: Caller, journalEntryId: string) {
  const response = await fetch(`${harness.env.LEDGER_URL}/v1/journal/${journalEntryId}`, {
    headers: { 'x-internal-token': tenantToken(caller.tenantId, { environment: caller.environment, scopes: ['ledger:read'] }) },
  });
  expect(response.status).toBe(200);
  return journalEntrySchema.parse(await response.json());
}

async function entriesReferencing(transferId: string): Promise<number> {
  const [row] = await harness.ledger
    .db('journal_entries')
    .where({ reference_type: 'transfer', reference_id: transferId })
    .count<{ count: string }[]>('* as count');
  return Number(row?.count);
}

describe('POST /v1/transfers', () => {
  it('moves the amount, charges the fee on top and splits the platform commission, in exactly the decided lines', async () => {
    const caller = await newCaller();
    const { scheduleId, ruleIds } = await publishedDefault(
      harness,
      caller.tenantId,
      [{ transactionType: 'transfer', currencyCode: 'USD', flatFee: '1.00', percentageFee: '1' }],
      2500,
    );
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '100.00');

    const key = `idem-${randomUUID()}`;
    const body = { fromWalletId: sender.id, toWalletId: receiver.id, amount: '50.00', currencyCode: 'USD', description: 'rent' };
    const sent = await transfer(caller, body, key);
    expect(sent.status).toBe(201);
    expect(transferSchema.parse(sent.body)).toEqual({
      id: expect.stringMatching(/^tx_[0-9A-Z]{26}$/),
      fromWalletId: sender.id,
      toWalletId: receiver.id,
      amount: '50.00',
      currencyCode: 'USD',
      fee: '1.50',
      status: 'completed',
      journalEntryId: expect.stringMatching(/^je_/),
      failureCode: null,
      description: 'rent',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    // fee 1.00 + 1 % of 50.00 = 1.50; commission 1.50 x 25 % = 0.375, half-up 0.38.
    const entry = await journalEntry(caller, sent.body.journalEntryId);
    expect(entry).toMatchObject({
      kind: 'transfer',
      tenantId: caller.tenantId,
      environment: 'live',
      reference: { type: 'transfer', id: sent.body.id },
    });
    expect(entry.lines.map((line) => [line.direction, line.accountName, line.amount, line.currencyCode])).toEqual([
      ['DR', `wallet:${sender.ownerId}`, '50.00', 'USD'],
      ['DR', `wallet:${sender.ownerId}`, '1.50', 'USD'],
      ['CR', `wallet:${receiver.ownerId}`, '50.00', 'USD'],
      ['CR', 'revenue:fees', '1.50', 'USD'],
      ['DR', 'revenue:fees', '0.38', 'USD'],
      ['CR', 'platform-commission', '0.38', 'USD'],
    ]);
    expect(await balanceOf(caller, sender)).toBe('48.50');
    expect(await balanceOf(caller, receiver)).toBe('50.00');

    // The fee's origin is recorded with the transfer.
    expect(await harness.db('transfers').where({ id: sent.body.id }).first()).toMatchObject({
      fee_schedule_id: scheduleId,
      fee_rule_id: ruleIds[0],
      platform_commission_bps: 2500,
    });
    expect(Number((await harness.db('transfers').where({ id: sent.body.id }).first()).commission)).toBe(0.38);

    // A replay is the final answer, byte for byte, and moves nothing.
    const again = await transfer(caller, body, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(sent.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await entriesReferencing(sent.body.id)).toBe(1);
    expect(await balanceOf(caller, sender)).toBe('48.50');

    const read = await call(caller, 'GET', `/v1/transfers/${sent.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(sent.body);
  });

  it('posts no fee lines without a fee schedule, and takes a JSON number amount exactly', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller, 'UGX');
    const receiver = await createWallet(caller, 'UGX');
    await fund(sender, '5000');
    const sent = await call(caller, 'POST', '/v1/transfers', {
      rawBody: `{"fromWalletId":"${sender.id}","toWalletId":"${receiver.id}","amount":1200,"currencyCode":"UGX"}`,
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ amount: '1200', fee: '0', status: 'completed' });
    const entry = await journalEntry(caller, sent.body.journalEntryId);
    expect(entry.lines.map((line) => [line.direction, line.accountName, line.amount])).toEqual([
      ['DR', `wallet:${sender.ownerId}`, '1200'],
      ['CR', `wallet:${receiver.ownerId}`, '1200'],
    ]);
    expect(await balanceOf(caller, sender)).toBe('3800');
  });

  it('refuses a transfer without an Idempotency-Key with 400 IDEMPOTENCY_KEY_REQUIRED', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    expectError(
      await call(caller, 'POST', '/v1/transfers', {
        body: { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1.00', currencyCode: 'USD' },
        key: null,
      }),
      400,
      'IDEMPOTENCY_KEY_REQUIRED',
    );
  });

  it('refuses the same wallet, a currency mismatch, a finer amount than the currency and a wallet of another tenant or environment, recording nothing', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    const kes = await createWallet(caller, 'KES');
    await fund(sender, '100.00');

    expectError(
      await transfer(caller, { fromWalletId: sender.id, toWalletId: sender.id, amount: '1.00', currencyCode: 'USD' }),
      422,
      'SAME_WALLET',
    );
    expectError(
      await transfer(caller, { fromWalletId: sender.id, toWalletId: kes.id, amount: '1.00', currencyCode: 'USD' }),
      422,
      'CURRENCY_MISMATCH',
    );
    expectError(
      await transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1.00', currencyCode: 'KES' }),
      422,
      'CURRENCY_MISMATCH',
    );
    const finer = await call(caller, 'POST', '/v1/transfers', {
      rawBody: `{"fromWalletId":"${sender.id}","toWalletId":"${receiver.id}","amount":10.001,"currencyCode":"USD"}`,
    });
    expect(expectError(finer, 400, 'INVALID_AMOUNT').details).toMatchObject({ field: 'amount' });
    expectError(
      await transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '0', currencyCode: 'USD' }),
      400,
      'INVALID_AMOUNT',
    );
    expectError(
      await transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1e2', currencyCode: 'USD' }),
      400,
      'INVALID_AMOUNT',
    );

    const stranger = await newCaller();
    const theirs = await createWallet(stranger);
    expect(
      expectError(
        await transfer(caller, { fromWalletId: sender.id, toWalletId: theirs.id, amount: '1.00', currencyCode: 'USD' }),
        404,
        'WALLET_NOT_FOUND',
      ).details,
    ).toEqual({ walletId: theirs.id });
    expectError(
      await transfer(stranger, { fromWalletId: sender.id, toWalletId: theirs.id, amount: '1.00', currencyCode: 'USD' }),
      404,
      'WALLET_NOT_FOUND',
    );
    expectError(
      await transfer(
        { ...caller, environment: 'test' },
        { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1.00', currencyCode: 'USD' },
      ),
      404,
      'WALLET_NOT_FOUND',
    );

    expect(await harness.db('transfers').where({ tenant_id: caller.tenantId })).toEqual([]);
    expect(await balanceOf(caller, sender)).toBe('100.00');
  });

  it('lets exactly 10 of 20 concurrent sends of 10 from a wallet of 100 pass; the others fail with INSUFFICIENT_FUNDS', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '100.00');

    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '10.00', currencyCode: 'USD' }),
      ),
    );
    // A send the ledger answers after the reply deadline (a loaded machine) is a 202 pending:
    // it counts by the status the ledger's event finishes it with.
    const finished = await Promise.all(answers.map((answer) => (answer.status === 202 ? finalTransfer(caller, answer) : answer)));
    const completed = finished.filter((answer) => answer.status === 201 || answer.body?.status === 'completed');
    const refused = finished.filter((answer) => !completed.includes(answer));
    expect(completed).toHaveLength(10);
    expect(refused).toHaveLength(10);
    for (const answer of refused) {
      const transferId =
        answer.status === 200
          ? (answer.body.id as string)
          : (expectError(answer, 422, 'INSUFFICIENT_FUNDS').details?.transferId as string | undefined);
      expect(transferId).toMatch(/^tx_/);
      expect(
        await harness
          .db('transfers')
          .where({ id: transferId as string })
          .first(),
      ).toMatchObject({ status: 'failed', failure_code: 'INSUFFICIENT_FUNDS', journal_entry_id: null });
    }
    expect(await balanceOf(caller, sender)).toBe('0.00');
    expect(await balanceOf(caller, receiver)).toBe('100.00');
    const balances = (
      await harness.ledger
        .db('journal_lines')
        .where({ account_num: (await harness.ledger.db('accounts').where({ wallet_id: sender.id }).first()).num })
        .select('balance_after')
    ).map((row: { balance_after: string }) => Number(row.balance_after));
    expect(Math.min(...balances)).toBeGreaterThanOrEqual(0);

    const failed = await call(caller, 'GET', `/v1/transfers?walletId=${sender.id}&status=failed&limit=200`);
    expect(transferPageSchema.parse(failed.body).data).toHaveLength(10);
  });

  it('replays a refusal as the same 422, and records the transfer failed', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    const key = `idem-${randomUUID()}`;
    const body = { fromWalletId: sender.id, toWalletId: receiver.id, amount: '5.00', currencyCode: 'USD' };
    const refused = await transfer(caller, body, key);
    const { transferId } = expectError(refused, 422, 'INSUFFICIENT_FUNDS').details as { transferId: string };
    const again = await transfer(caller, body, key);
    expect(again.status).toBe(422);
    expect(again.text).toBe(refused.text);
    expect((await call(caller, 'GET', `/v1/transfers/${transferId}`)).body).toMatchObject({
      id: transferId,
      status: 'failed',
      failureCode: 'INSUFFICIENT_FUNDS',
      journalEntryId: null,
    });
  });

  it('remembers a refusal made before anything was written for its key, and answers another transfer with that key 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '100.00');
    const key = `idem-${randomUUID()}`;
    const refused = await transfer(caller, { fromWalletId: sender.id, toWalletId: sender.id, amount: '1.00', currencyCode: 'USD' }, key);
    expectError(refused, 422, 'SAME_WALLET');
    const again = await transfer(caller, { fromWalletId: sender.id, toWalletId: sender.id, amount: '1.00', currencyCode: 'USD' }, key);
    expect(again.status).toBe(422);
    expect(again.text).toBe(refused.text);
    // A transfer that would pass, with the refused one's key: the key says no, nothing moves.
    expectError(
      await transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1.00', currencyCode: 'USD' }, key),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await harness.db('transfers').where({ tenant_id: caller.tenantId })).toEqual([]);
    expect(await balanceOf(caller, sender)).toBe('100.00');
  });

  it('moves money once for one Idempotency-Key sent 50 times at once', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '100.00');
    const key = `idem-${randomUUID()}`;
    const body = { fromWalletId: sender.id, toWalletId: receiver.id, amount: '7.00', currencyCode: 'USD' };
    const answers = await Promise.all(Array.from({ length: 50 }, () => transfer(caller, body, key)));
    const ids = new Set<string>();
    for (const answer of answers) {
      if (answer.status === 409) expectError(answer, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
      else {
        expect([201, 202]).toContain(answer.status);
        ids.add(transferSchema.parse(answer.body).id);
      }
    }
    expect(ids.size).toBe(1);
    const [transferId] = [...ids];
    await waitFor(async () => ((await harness.db('transfers').where({ id: transferId, status: 'completed' }).first()) ? true : undefined), {
      what: 'the transfer to complete',
    });
    expect(await harness.db('transfers').where({ tenant_id: caller.tenantId })).toHaveLength(1);
    expect(await entriesReferencing(transferId as string)).toBe(1);
    expect(await balanceOf(caller, sender)).toBe('93.00');
    const replay = await transfer(caller, body, key);
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ id: transferId, status: 'completed' });
  });

  it('refuses a send from a frozen wallet with WALLET_FROZEN, while it still receives', async () => {
    const caller = await newCaller();
    const frozen = await createWallet(caller);
    const other = await createWallet(caller);
    await fund(frozen, '20.00');
    await fund(other, '20.00');
    const freeze = await call(caller, 'POST', `/v1/wallets/${frozen.id}/freeze`, { body: { reason: 'review' }, key: null });
    expect(freeze.status).toBe(200);

    expectError(
      await transfer(caller, { fromWalletId: frozen.id, toWalletId: other.id, amount: '1.00', currencyCode: 'USD' }),
      422,
      'WALLET_FROZEN',
    );
    const received = await transfer(caller, { fromWalletId: other.id, toWalletId: frozen.id, amount: '2.50', currencyCode: 'USD' });
    expect(received.status).toBe(201);
    expect(await balanceOf(caller, frozen)).toBe('22.50');
    expect(await balanceOf(caller, other)).toBe('17.50');
  });

  it('never posts a send from a wallet after its freeze was answered, whatever was in flight when it came', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '100.00');
    const ledgerBalance = async () =>
      String((await harness.ledger.db('accounts').where({ wallet_id: sender.id }).first('balance')).balance);

    // Eight senders keep sending while the freeze is asked for: sends in flight when it comes are
    // decided by the ledger either before the freeze or after it; a send started after the answer
    // must be refused.
    const send = () => transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1.00', currencyCode: 'USD' });
    let acknowledgedAt = Number.POSITIVE_INFINITY;
    let stopAt = Number.POSITIVE_INFINITY;
    const outcomes: Array<{ startedAt: number; answer: HttpResult }> = [];
    const senders = Array.from({ length: 8 }, async () => {
      while (Date.now() < stopAt && outcomes.length < 90) {
        const startedAt = Date.now();
        outcomes.push({ startedAt, answer: await send() });
      }
    });
    await waitFor(async () => (outcomes.length >= 8 ? true : undefined), { what: 'the first sends' });
    const freeze = await call(caller, 'POST', `/v1/wallets/${sender.id}/freeze`, { body: { reason: 'race' }, key: null });
    expect(freeze.status).toBe(200);
    acknowledgedAt = Date.now();
    const balanceAtAcknowledgement = await ledgerBalance();
    stopAt = acknowledgedAt + 300;
    await Promise.all(senders);

    for (const { startedAt, answer } of outcomes) {
      if (startedAt > acknowledgedAt) expectError(answer, 422, 'WALLET_FROZEN');
      else if (answer.status === 422) expect(answer.body.error.code).toBe('WALLET_FROZEN');
      else expect([201, 202]).toContain(answer.status);
    }
    expect(outcomes.some(({ startedAt }) => startedAt > acknowledgedAt)).toBe(true);
    await waitFor(
      async () => ((await harness.db('transfers').where({ from_wallet_id: sender.id, status: 'pending' }).first()) ? undefined : true),
      { what: 'every send decided' },
    );
    // Nothing left the wallet after the freeze was answered.
    expect(await ledgerBalance()).toBe(balanceAtAcknowledgement);
    const completed = await harness.db('transfers').where({ from_wallet_id: sender.id, status: 'completed' });
    const refused = await harness.db('transfers').where({ from_wallet_id: sender.id, status: 'failed' });
    for (const row of refused) expect(row.failure_code).toBe('WALLET_FROZEN');
    expect(new BigNumber(balanceAtAcknowledgement).isEqualTo(new BigNumber('100.00').minus(completed.length))).toBe(true);
  });
});

describe('a transfer the ledger does not answer in time', () => {
  it('answers 202 pending, then completes from the ledger event once the ledger is back; a replay is the 202 the client got', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '30.00');
    const key = `idem-${randomUUID()}`;
    const body = { fromWalletId: sender.id, toWalletId: receiver.id, amount: '12.00', currencyCode: 'USD' };

    await harness.ledger.stop();
    let pending: HttpResult;
    try {
      const startedAt = Date.now();
      pending = await transfer(caller, body, key);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(REPLY_TIMEOUT_MS - 50);
      expect(pending.status).toBe(202);
      expect(transferSchema.parse(pending.body)).toMatchObject({
        status: 'pending',
        journalEntryId: null,
        failureCode: null,
        amount: '12.00',
        fee: '0.00',
      });
      expect((await call(caller, 'GET', `/v1/transfers/${pending.body.id}`)).body.status).toBe('pending');
    } finally {
      await harness.ledger.restart();
    }

    const completed = await waitFor(
      async () => {
        const read = await call(caller, 'GET', `/v1/transfers/${pending.body.id}`);
        return read.body.status === 'completed' ? read.body : undefined;
      },
      { what: 'the events consumer to complete the transfer' },
    );
    expect(completed).toMatchObject({ id: pending.body.id, journalEntryId: expect.stringMatching(/^je_/), failureCode: null });
    expect(await balanceOf(caller, sender)).toBe('18.00');
    expect(await balanceOf(caller, receiver)).toBe('12.00');

    const replay = await transfer(caller, body, key);
    expect(replay.status).toBe(202);
    expect(replay.text).toBe(pending.text);
    expect(await entriesReferencing(pending.body.id)).toBe(1);
  });
});

/** Empties every queue a ledger command can wait in: the broker loses what it holds. */
async function loseLedgerCommands(): Promise<void> {
  const connection = await amqp.connect(harness.amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of [...ledgerPartitionQueues(32), TOPOLOGY.ledgerCommands.unplacedQueue]) await channel.purgeQueue(queue);
  } finally {
    await connection.close();
  }
}

describe('a transfer whose command is lost after the broker took it', () => {
  it('is sent again once unanswered past OUTBOX_RESEND_UNANSWERED_AFTER_MS, and completes with one entry', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '30.00');
    const body = { fromWalletId: sender.id, toWalletId: receiver.id, amount: '5.00', currencyCode: 'USD' };

    await harness.ledger.stop();
    let pending: HttpResult;
    try {
      pending = await transfer(caller, body);
      expect(pending.status).toBe(202);
      const commandId = `${pending.body.id}:post`;
      await waitFor(async () => ((await harness.db('outbox').where({ message_id: commandId }).first()) ? undefined : true), {
        what: 'the command confirmed by the broker',
      });
      expect(await harness.db('outbox_unanswered').where({ message_id: commandId }).first()).toBeDefined();
      await loseLedgerCommands();
    } finally {
      await harness.ledger.restart();
    }

    const completed = await waitFor(
      async () => {
        const read = await call(caller, 'GET', `/v1/transfers/${pending.body.id}`);
        return read.body.status === 'completed' ? read.body : undefined;
      },
      { what: 'the command sent again, and the transfer completed', timeoutMs: 4 * RESEND_AFTER_MS },
    );
    expect(completed.journalEntryId).toMatch(/^je_/);
    expect(await entriesReferencing(pending.body.id)).toBe(1);
    expect(await balanceOf(caller, receiver)).toBe('5.00');
    await waitFor(
      async () =>
        (await harness
          .db('outbox_unanswered')
          .where({ message_id: `${pending.body.id}:post` })
          .first())
          ? undefined
          : true,
      { what: 'the answered command forgotten' },
    );
  });
});

describe('GET /v1/transfers', () => {
  it('lists newest first in cursor pages, filters by either wallet and status, and hides other tenants and environments', async () => {
    const caller = await newCaller();
    const [a, b, c] = [await createWallet(caller), await createWallet(caller), await createWallet(caller)] as [
      WalletRef,
      WalletRef,
      WalletRef,
    ];
    await fund(a, '100.00');
    const made: string[] = [];
    for (const [from, to] of [
      [a, b],
      [a, c],
      [b, c],
    ] as Array<[WalletRef, WalletRef]>) {
      const sent = await transfer(caller, { fromWalletId: from.id, toWalletId: to.id, amount: '1.00', currencyCode: 'USD' });
      expect(sent.status).toBe(201);
      made.push(sent.body.id);
    }
    const first = await call(caller, 'GET', '/v1/transfers?limit=2');
    expect(first.body.data.map((each: { id: string }) => each.id)).toEqual([made[2], made[1]]);
    const second = await call(caller, 'GET', `/v1/transfers?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: made[0] })], nextCursor: null });
    expect((await call(caller, 'GET', `/v1/transfers?walletId=${b.id}`)).body.data.map((each: { id: string }) => each.id)).toEqual([
      made[2],
      made[0],
    ]);
    expect((await call(caller, 'GET', '/v1/transfers?status=failed')).body.data).toEqual([]);
    expectError(await call(caller, 'GET', '/v1/transfers?cursor=nope'), 400, 'INVALID_CURSOR');

    const stranger = await newCaller();
    expect((await call(stranger, 'GET', '/v1/transfers')).body.data).toEqual([]);
    expectError(await call(stranger, 'GET', `/v1/transfers/${made[0]}`), 404, 'TRANSFER_NOT_FOUND');
    expectError(await call({ ...caller, environment: 'test' }, 'GET', `/v1/transfers/${made[0]}`), 404, 'TRANSFER_NOT_FOUND');
  });
});

/** A queue of this test's own on `exchange`, and a way to wait for a message there. */
async function tap(exchange: string, bindingKey: string) {
  const connection = await amqp.connect(harness.amqpUrl);
  const channel = await connection.createConfirmChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, bindingKey);
  const seen: amqp.GetMessage[] = [];
  return {
    channel,
    next: <Found>(find: (message: amqp.GetMessage) => Found | undefined, what: string) =>
      waitFor(
        async () => {
          for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true }))
            seen.push(message);
          const index = seen.findIndex((message) => find(message) !== undefined);
          return index === -1 ? undefined : find(seen.splice(index, 1)[0] as amqp.GetMessage);
        },
        { what },
      ),
    close: () => connection.close(),
  };
}

describe('the events a transfer announces', () => {
  it('publishes transfer.completed after the result is recorded, in one platform.events.v1 message; a redelivered result announces the same event', async () => {
    const caller = await newCaller();
    const sender = await createWallet(caller);
    const receiver = await createWallet(caller);
    await fund(sender, '5.00');
    const events = await tap(TOPOLOGY.platformEvents.exchange, '#');
    const results = await tap(TOPOLOGY.ledgerEvents.exchange, 'ledger.posted.transfer');
    try {
      const sent = await transfer(caller, { fromWalletId: sender.id, toWalletId: receiver.id, amount: '1.25', currencyCode: 'USD' });
      expect(sent.status).toBe(201);
      const announcedOf = (message: amqp.GetMessage) => {
        const body = JSON.parse(message.content.toString('utf8'));
        const event = body.events?.find((each: { objectId: string }) => each.objectId === sent.body.id);
        return event ? { type: body.type as string, event } : undefined;
      };
      const first = await events.next(announcedOf, 'the transfer.completed event');
      expect(first.type).toBe('platform.events.v1');
      expect(first.event).toMatchObject({ tenantId: caller.tenantId, type: 'transfer.completed', environment: 'live' });
      expect(JSON.parse(first.event.json).data.object).toEqual((await call(caller, 'GET', `/v1/transfers/${sent.body.id}`)).body);

      const result = await results.next((message) => (message.content.includes(sent.body.id) ? message : undefined), 'its result');
      results.channel.publish(TOPOLOGY.ledgerEvents.exchange, result.fields.routingKey, result.content, result.properties);
      await results.channel.waitForConfirms();
      const again = await events.next(announcedOf, 'the event announced again');
      expect(again.event).toEqual(first.event);
      expect(await entriesReferencing(sent.body.id)).toBe(1);
    } finally {
      await events.close();
      await results.close();
    }
  });
});
