import { randomUUID } from 'node:crypto';
import { auditRecordV1Schema, errorBodySchema, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  newTenantId,
  startLedgerBackedHarness,
  tenantToken,
  transferCommand,
  type WalletRef,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, the payments service over HTTP and the ledger service beside it,
 * stopped and started again where a test needs the ledger silent. Sends and receipts are
 * commands posted straight to the ledger, which is where a freeze is enforced.
 */
let harness: LedgerBackedHarness;
const REPLY_TIMEOUT_MS = 1500;

beforeAll(async () => {
  harness = await startLedgerBackedHarness({
    PAYMENTS_LEDGER_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
    PAYMENTS_WALLET_STATUS_RETRY_INTERVAL_MS: '200',
    PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000',
  });
});

afterAll(async () => {
  await harness?.close();
});

interface Caller {
  tenantId: string;
  environment: 'test' | 'live';
}

const ACTOR = { type: 'team_member', id: 'usr_freezer' };

function call(caller: Caller, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return harness.request(method, path, {
    token: tenantToken(caller.tenantId, { environment: caller.environment, keyId: 'ak_ops', actor: ACTOR }),
    body,
  });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

async function newCaller(): Promise<Caller> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['KES'] });
  return { tenantId, environment: 'live' };
}

async function createWallet(caller: Caller, ownerId = `user-${randomUUID().slice(0, 8)}`): Promise<WalletRef> {
  const created = await call(caller, 'POST', '/v1/wallets', { ownerType: 'user', ownerId, currencyCode: 'KES' });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

async function balanceOf(caller: Caller, wallet: WalletRef): Promise<string> {
  const read = await call(caller, 'GET', `/v1/wallets/${wallet.id}`);
  expect(read.status).toBe(200);
  return read.body.balance as string;
}

describe('POST /v1/wallets/{id}/freeze and /unfreeze', () => {
  it('freezes: once answered, a send from the wallet is refused while money still comes in; unfreezing restores sends', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    const other = await createWallet(caller);
    await harness.ledger.commands.request(depositCommand(wallet, '50.00'));
    await harness.ledger.commands.request(depositCommand(other, '20.00'));

    const frozen = await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'suspected fraud' });
    expect(frozen.status).toBe(200);
    expect(walletSchema.parse(frozen.body)).toEqual({ ...wallet, status: 'frozen', balance: '50.00' });

    // No waiting: the ledger had the freeze before payments answered.
    const send = await harness.ledger.commands.request(transferCommand(wallet, other, '10.00'));
    expect(send).toMatchObject({ status: 'rejected', error: { code: 'WALLET_FROZEN' } });
    expect((await harness.ledger.commands.request(depositCommand(wallet, '5.00'))).status).toBe('posted');
    expect((await harness.ledger.commands.request(transferCommand(other, wallet, '2.50'))).status).toBe('posted');
    expect(await balanceOf(caller, wallet)).toBe('57.50');
    expect((await call(caller, 'GET', `/v1/wallets/${wallet.id}`)).body.status).toBe('frozen');

    const unfrozen = await call(caller, 'POST', `/v1/wallets/${wallet.id}/unfreeze`, { reason: 'cleared by compliance' });
    expect(unfrozen.status).toBe(200);
    expect(unfrozen.body).toMatchObject({ id: wallet.id, status: 'active', balance: '57.50' });
    expect((await harness.ledger.commands.request(transferCommand(wallet, other, '10.00'))).status).toBe('posted');
    expect(await balanceOf(caller, wallet)).toBe('47.50');
  });

  it('records wallet.frozen and wallet.unfrozen through the outbox, and nothing for a change that changes nothing', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    const audits = await harness.watchAuditRecords();

    expect((await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'chargeback review' })).status).toBe(200);
    const again = await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'pressed twice' });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('frozen');
    expect((await call(caller, 'POST', `/v1/wallets/${wallet.id}/unfreeze`, { reason: 'review done' })).status).toBe(200);
    expect((await call(caller, 'POST', `/v1/wallets/${wallet.id}/unfreeze`, { reason: 'pressed twice' })).status).toBe(200);

    const records = await waitFor(
      async () => {
        const seen = await audits.received();
        return seen.length >= 2 ? seen : undefined;
      },
      { what: 'two audit records' },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const all = (await audits.received()).map((record) => auditRecordV1Schema.parse(record));
    expect(all).toHaveLength(2);
    expect(records.map((record) => record.action)).toEqual(['wallet.frozen', 'wallet.unfrozen']);
    expect(all[0]).toMatchObject({
      type: 'audit.record.v1',
      tenantId: caller.tenantId,
      environment: 'live',
      action: 'wallet.frozen',
      actorType: 'team_member',
      actorId: 'usr_freezer',
      targetType: 'wallet',
      targetId: wallet.id,
      metadata: {
        apiKeyId: 'ak_ops',
        reason: 'chargeback review',
        before: { status: 'active' },
        after: { status: 'frozen' },
        correlationId: expect.any(String),
      },
    });
    expect(all[1]?.metadata).toMatchObject({ reason: 'review done', before: { status: 'frozen' }, after: { status: 'active' } });
    await waitFor(async () => ((await harness.db('outbox').first('message_id')) ? undefined : true), { what: 'an empty outbox' });
  });

  it.each([
    ['no reason', {}],
    ['an empty reason', { reason: '   ' }],
    ['a reason of 501 characters', { reason: 'r'.repeat(501) }],
  ])('refuses %s with 400 VALIDATION_ERROR and leaves the wallet as it was', async (_name, body) => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    expectError(await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, body), 400, 'VALIDATION_ERROR');
    expect((await call(caller, 'GET', `/v1/wallets/${wallet.id}`)).body.status).toBe('active');
  });

  it('accepts a reason of exactly 500 characters', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    expect((await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'r'.repeat(500) })).status).toBe(200);
  });

  it('keeps concurrent freezes and unfreezes of one wallet in one order that payments and the ledger agree on', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_unused, index) =>
        call(caller, 'POST', `/v1/wallets/${wallet.id}/${index % 2 === 0 ? 'freeze' : 'unfreeze'}`, { reason: `race ${index}` }),
      ),
    );
    for (const result of results) expect([200, 503]).toContain(result.status);
    await waitFor(
      async () =>
        (await harness.db('wallet_status_changes').where({ wallet_id: wallet.id, state: 'pending' }).first()) ? undefined : true,
      { what: 'no pending change' },
    );
    const stored = await harness.db('wallets').where({ id: wallet.id }).first();
    const account = await harness.ledger.db('accounts').where({ wallet_id: wallet.id }).first();
    expect(account.status).toBe(stored.status);
  });
});

describe('a freeze the ledger does not answer in time', () => {
  it('answers 503 with the status unchanged, then settles where the ledger ends, with one audit record', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    const other = await createWallet(caller);
    await harness.ledger.commands.request(depositCommand(wallet, '30.00'));
    // The first change waits for the ledger to confirm the account open; have that behind us.
    expect((await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'warm up' })).status).toBe(200);
    expect((await call(caller, 'POST', `/v1/wallets/${wallet.id}/unfreeze`, { reason: 'warm up' })).status).toBe(200);
    // The warm-up's audit records leave through the outbox after their answers: let them go first.
    await waitFor(async () => ((await harness.db('outbox').first()) ? undefined : true), {
      what: 'the warm-up audit records to leave the outbox',
    });
    const audits = await harness.watchAuditRecords();

    await harness.ledger.stop();
    let refused: HttpResult;
    try {
      const startedAt = Date.now();
      refused = await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'ledger was slow' });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(REPLY_TIMEOUT_MS - 50);
      expectError(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(await harness.db('wallets').where({ id: wallet.id }).first()).toMatchObject({ status: 'active' });
      expect(await audits.received()).toEqual([]);
    } finally {
      await harness.ledger.restart();
    }

    // The queued command reaches the ledger; payments re-sends it and records the answer.
    await waitFor(async () => ((await harness.db('wallets').where({ id: wallet.id }).first()).status === 'frozen' ? true : undefined), {
      what: 'payments to record the freeze',
    });
    expect((await harness.ledger.db('accounts').where({ wallet_id: wallet.id }).first()).status).toBe('frozen');
    expect((await harness.ledger.commands.request(transferCommand(wallet, other, '1.00'))).error?.code).toBe('WALLET_FROZEN');
    const records = await waitFor(
      async () => {
        const seen = await audits.received();
        return seen.length > 0 ? seen : undefined;
      },
      { what: 'the audit record' },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await audits.received()).toHaveLength(1);
    expect(records[0]).toMatchObject({
      action: 'wallet.frozen',
      targetId: wallet.id,
      actorId: 'usr_freezer',
      metadata: { reason: 'ledger was slow', before: { status: 'active' }, after: { status: 'frozen' } },
    });
    expect((await call(caller, 'GET', `/v1/wallets/${wallet.id}`)).body).toMatchObject({ status: 'frozen', balance: '30.00' });
  });

  it('refuses a freeze of a wallet whose account the ledger has not confirmed open, and succeeds once it is back', async () => {
    const caller = await newCaller();
    await harness.ledger.stop();
    let wallet: WalletRef;
    try {
      // Creation needs no answer from the ledger: the opening command waits in the queue.
      wallet = await createWallet(caller);
      expectError(await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'too early' }), 503, 'SERVICE_UNAVAILABLE');
      expect(await harness.db('wallet_status_changes').where({ wallet_id: wallet.id })).toEqual([]);
    } finally {
      await harness.ledger.restart();
    }
    const frozen = await call(caller, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'now' });
    expect(frozen.status).toBe(200);
    expect(frozen.body.status).toBe('frozen');
    // Every copy of the opening command is behind the freeze: none can reset it to active.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await harness.ledger.db('accounts').where({ wallet_id: wallet.id }).first()).status).toBe('frozen');
  });
});
