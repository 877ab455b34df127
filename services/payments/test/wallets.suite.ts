import { randomUUID } from 'node:crypto';
import { errorBodySchema, newId, statementPageSchema, walletPageSchema, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
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
 * Real: PostgreSQL, RabbitMQ, the payments service over HTTP and the ledger service beside it.
 * Tenants arrive as identity's events, published here; money moves by commands sent straight
 * to the ledger, as the deposit and transfer features will send them.
 */
let harness: LedgerBackedHarness;

beforeAll(async () => {
  harness = await startLedgerBackedHarness({ PAYMENTS_TENANT_WAIT_MS: '1000', PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000' });
});

afterAll(async () => {
  await harness?.close();
});

interface Caller {
  tenantId: string;
  environment: 'test' | 'live';
}

async function newTenant(allowedCurrencies = ['KES', 'USD', 'UGX']): Promise<string> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies });
  return tenantId;
}

function call(caller: Caller, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return harness.request(method, path, { token: tenantToken(caller.tenantId, { environment: caller.environment }), body });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

async function createWallet(caller: Caller, body: { ownerType?: string; ownerId?: string; currencyCode?: string } = {}) {
  const created = await call(caller, 'POST', '/v1/wallets', {
    ownerType: 'user',
    ownerId: `user-${randomUUID().slice(0, 8)}`,
    currencyCode: 'KES',
    ...body,
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

/** How many account reads the ledger has served: one per page of wallets is the promise. */
async function ledgerAccountReads(): Promise<number> {
  const text = await (await fetch(`${harness.env.LEDGER_URL}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    if ((match[1] ?? '').includes('route="/v1/ledger/accounts"')) total += Number(match[2]);
  }
  return total;
}

describe('POST /v1/wallets with an Idempotency-Key', () => {
  function createWith(caller: Caller, key: string, body: Record<string, unknown>): Promise<HttpResult> {
    return harness.request('POST', '/v1/wallets', {
      token: tenantToken(caller.tenantId, { environment: caller.environment }),
      body,
      headers: { 'Idempotency-Key': key },
    });
  }

  it('replays the first creation byte for byte, refuses the key for another request, and keeps keys per environment', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'test' };
    const key = `idem-${randomUUID()}`;
    const body = { ownerType: 'user', ownerId: `u-${randomUUID().slice(0, 8)}`, currencyCode: 'KES' };
    const first = await createWith(caller, key, body);
    const again = await createWith(caller, key, body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await createWith(caller, key, { ...body, currencyCode: 'USD' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    // The same key in the other environment is another key: it creates that environment's wallet.
    const live = await createWith({ ...caller, environment: 'live' }, key, body);
    expect(live.status).toBe(201);
    expect(live.body.id).not.toBe(first.body.id);
  });

  it('creates one wallet for 10 concurrent requests with one key', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const key = `idem-${randomUUID()}`;
    const body = { ownerType: 'company', ownerId: `c-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => createWith(caller, key, body)));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 201))
      expectError(answer, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
    const listed = await call(caller, 'GET', `/v1/wallets?ownerId=${body.ownerId}`);
    expect(listed.body.data).toHaveLength(1);
  });
});

describe('POST /v1/wallets', () => {
  it('creates a wallet with a zero balance at the currency scale and opens its ledger account through the outbox', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const created = await call(caller, 'POST', '/v1/wallets', { ownerType: 'branch', ownerId: 'kampala-01', currencyCode: 'KES' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wl_[0-9A-Z]{26}$/),
      tenantId: caller.tenantId,
      environment: 'live',
      ownerType: 'branch',
      ownerId: 'kampala-01',
      currencyCode: 'KES',
      balance: '0.00',
      status: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const ugx = await createWallet(caller, { ownerId: 'kampala-01', ownerType: 'branch', currencyCode: 'UGX' });
    expect(ugx.balance).toBe('0');

    const account = await waitFor(
      async () => (await harness.ledger.db('accounts').where({ wallet_id: created.body.id }).first()) ?? undefined,
      { what: 'the wallet account' },
    );
    expect(account).toMatchObject({
      tenant_id: caller.tenantId,
      environment: 'live',
      name: 'wallet:kampala-01',
      currency_code: 'KES',
      status: 'active',
    });
    // The relay deletes a row once the broker confirmed it, which may be after the ledger took the message.
    await waitFor(async () => ((await harness.db('outbox').first('message_id')) ? undefined : true), { what: 'an empty outbox' });

    const read = await call(caller, 'GET', `/v1/wallets/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('refuses a second wallet for the same owner and currency with 409 WALLET_EXISTS naming the first', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const first = await createWallet(caller, { ownerId: 'user-7' });
    const again = await call(caller, 'POST', '/v1/wallets', { ownerType: 'user', ownerId: 'user-7', currencyCode: 'KES' });
    expect(expectError(again, 409, 'WALLET_EXISTS').details).toEqual({ walletId: first.id });

    // Another currency, owner type or environment is another wallet.
    await createWallet(caller, { ownerId: 'user-7', currencyCode: 'USD' });
    await createWallet(caller, { ownerId: 'user-7', ownerType: 'company' });
    await createWallet({ ...caller, environment: 'test' }, { ownerId: 'user-7' });
  });

  it('makes one wallet of ten concurrent identical creations', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(caller, 'POST', '/v1/wallets', { ownerType: 'user', ownerId: 'racer', currencyCode: 'KES' })),
    );
    const created = results.filter((result) => result.status === 201);
    expect(created).toHaveLength(1);
    const walletId = created[0]?.body.id as string;
    for (const refused of results.filter((result) => result.status !== 201))
      expect(expectError(refused, 409, 'WALLET_EXISTS').details).toEqual({ walletId });
    expect(await harness.db('wallets').where({ tenant_id: caller.tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '1' },
    ]);
  });

  it("refuses a currency outside the tenant's allowed currencies with 422 CURRENCY_NOT_ALLOWED", async () => {
    const caller: Caller = { tenantId: await newTenant(['KES']), environment: 'live' };
    const refused = await call(caller, 'POST', '/v1/wallets', { ownerType: 'user', ownerId: 'user-1', currencyCode: 'USD' });
    expect(expectError(refused, 422, 'CURRENCY_NOT_ALLOWED').details).toEqual({ currencyCode: 'USD', allowedCurrencies: ['KES'] });
    expect(await harness.db('wallets').where({ tenant_id: caller.tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '0' },
    ]);
  });

  it('follows tenant.updated: a currency allowed later can be used, an older event changes nothing', async () => {
    const tenantId = newTenantId();
    const createdAt = new Date(Date.now() - 60_000);
    await harness.publishTenant(tenantId, { allowedCurrencies: ['KES'] }, { occurredAt: createdAt.toISOString() });
    await harness.publishTenant(
      tenantId,
      { allowedCurrencies: ['KES', 'USD'] },
      { type: 'tenant.updated.v1', occurredAt: new Date().toISOString() },
    );
    // A stale copy of the creation, redelivered late, must not take USD away again.
    await harness.publishTenant(tenantId, { allowedCurrencies: ['KES'] }, { occurredAt: createdAt.toISOString() });
    await createWallet({ tenantId, environment: 'live' }, { currencyCode: 'USD' });
    const stored = await harness.db('tenants').where({ id: tenantId }).first();
    expect(stored).toMatchObject({ allowed_currencies: ['KES', 'USD'], default_currency: 'KES', max_transaction_amount: '1000000' });
  });

  it('waits briefly for a tenant whose creation event is still on its way, then answers 503 for one never heard of', async () => {
    const lateTenant = newTenantId();
    const pending = call({ tenantId: lateTenant, environment: 'live' }, 'POST', '/v1/wallets', {
      ownerType: 'user',
      ownerId: 'early',
      currencyCode: 'KES',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await harness.publishTenant(lateTenant, { allowedCurrencies: ['KES'] }, { wait: false });
    expect((await pending).status).toBe(201);

    const unknown = await call({ tenantId: newTenantId(), environment: 'live' }, 'POST', '/v1/wallets', {
      ownerType: 'user',
      ownerId: 'nobody',
      currencyCode: 'KES',
    });
    expect(expectError(unknown, 503, 'SERVICE_UNAVAILABLE').details).toEqual({ reason: 'TENANT_CONFIGURATION_PENDING' });
  });

  it.each([
    ['an unknown owner type', { ownerType: 'family', ownerId: 'x', currencyCode: 'KES' }, 'ownerType'],
    ['an empty owner id', { ownerType: 'user', ownerId: '', currencyCode: 'KES' }, 'ownerId'],
    ['an owner id of 129 characters', { ownerType: 'user', ownerId: 'a'.repeat(129), currencyCode: 'KES' }, 'ownerId'],
    ['an owner id no ledger account name can hold', { ownerType: 'user', ownerId: 'john doe', currencyCode: 'KES' }, 'ownerId'],
    ['an unknown currency', { ownerType: 'user', ownerId: 'x', currencyCode: 'XXX' }, 'currencyCode'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_name, body, field) => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const refused = await call(caller, 'POST', '/v1/wallets', body);
    expect(expectError(refused, 400, 'VALIDATION_ERROR').details?.fields).toEqual([expect.objectContaining({ path: field })]);
  });

  it('accepts an owner id of exactly 128 characters', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const wallet = await createWallet(caller, { ownerId: 'a'.repeat(128) });
    await waitFor(async () => ((await harness.ledger.db('accounts').where({ wallet_id: wallet.id }).first()) ? true : undefined), {
      what: 'the wallet account',
    });
  });
});

describe('GET /v1/wallets', () => {
  it('lists newest first in cursor pages, with each balance from one ledger read per page', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const made = [];
    for (let index = 0; index < 5; index += 1) made.push(await createWallet(caller, { ownerId: `list-${index}` }));
    await harness.ledger.commands.request(depositCommand(made[3] as WalletRef, '12.50'));

    const readsBefore = await ledgerAccountReads();
    const first = await call(caller, 'GET', '/v1/wallets?limit=3');
    expect(first.status).toBe(200);
    const firstPage = walletPageSchema.parse(first.body);
    expect(await ledgerAccountReads()).toBe(readsBefore + 1);
    expect(firstPage.data.map((wallet) => wallet.ownerId)).toEqual(['list-4', 'list-3', 'list-2']);
    expect(firstPage.data.map((wallet) => wallet.balance)).toEqual(['0.00', '12.50', '0.00']);
    expect(firstPage.nextCursor).toEqual(expect.any(String));

    const second = walletPageSchema.parse((await call(caller, 'GET', `/v1/wallets?limit=3&cursor=${firstPage.nextCursor}`)).body);
    expect(second.data.map((wallet) => wallet.ownerId)).toEqual(['list-1', 'list-0']);
    expect(second.nextCursor).toBeNull();
    expect(await ledgerAccountReads()).toBe(readsBefore + 2);
  });

  it('filters by owner type, owner id, currency and status', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const user = await createWallet(caller, { ownerType: 'user', ownerId: 'filter-a', currencyCode: 'KES' });
    const userUsd = await createWallet(caller, { ownerType: 'user', ownerId: 'filter-a', currencyCode: 'USD' });
    const company = await createWallet(caller, { ownerType: 'company', ownerId: 'filter-b', currencyCode: 'KES' });
    const ids = async (query: string) =>
      walletPageSchema.parse((await call(caller, 'GET', `/v1/wallets?${query}`)).body).data.map((wallet) => wallet.id);

    expect(await ids('ownerType=company')).toEqual([company.id]);
    expect(await ids('ownerId=filter-a')).toEqual([userUsd.id, user.id]);
    expect(await ids('currencyCode=KES')).toEqual([company.id, user.id]);
    expect(await ids('ownerId=filter-a&currencyCode=KES')).toEqual([user.id]);
    expect(await ids('status=frozen')).toEqual([]);
    expect((await call(caller, 'POST', `/v1/wallets/${company.id}/freeze`, { reason: 'filter test' })).status).toBe(200);
    expect(await ids('status=frozen')).toEqual([company.id]);
    expect(await ids('status=active')).toEqual([userUsd.id, user.id]);
  });

  it('refuses a malformed cursor with 400 INVALID_CURSOR and a bad filter with 400 VALIDATION_ERROR', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    expectError(await call(caller, 'GET', '/v1/wallets?cursor=not-a-cursor'), 400, 'INVALID_CURSOR');
    expectError(await call(caller, 'GET', '/v1/wallets?status=closed'), 400, 'VALIDATION_ERROR');
    expectError(await call(caller, 'GET', '/v1/wallets?limit=201'), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /v1/wallets/{id} and /v1/wallets/{id}/entries', () => {
  it('shows a posting the ledger has confirmed at once, in the balance and in the statement', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const wallet = await createWallet(caller, { ownerId: 'reader' });
    for (const amount of ['100.10', '0.05']) {
      const posted = await harness.ledger.commands.request(depositCommand(wallet, amount));
      expect(posted.status).toBe('posted');
    }
    // No waiting: the ledger answered after its commit, and payments reads the ledger itself.
    const read = await call(caller, 'GET', `/v1/wallets/${wallet.id}`);
    expect(read.body).toMatchObject({ id: wallet.id, balance: '100.15', status: 'active' });
    const listed = walletPageSchema.parse((await call(caller, 'GET', '/v1/wallets')).body);
    expect(listed.data.find((item) => item.id === wallet.id)?.balance).toBe('100.15');

    const entries = await call(caller, 'GET', `/v1/wallets/${wallet.id}/entries`);
    expect(entries.status).toBe(200);
    const statement = statementPageSchema.parse(entries.body);
    expect(statement.data.map(({ kind, direction, amount, balanceAfter }) => ({ kind, direction, amount, balanceAfter }))).toEqual([
      { kind: 'momo_deposit', direction: 'CR', amount: '0.05', balanceAfter: '100.15' },
      { kind: 'momo_deposit', direction: 'CR', amount: '100.10', balanceAfter: '100.10' },
    ]);
    expect(statement.data[0]?.journalEntryId).toMatch(/^je_/);
    expect(statement.nextCursor).toBeNull();

    // The ledger's cursor passes through both ways.
    const firstPage = statementPageSchema.parse((await call(caller, 'GET', `/v1/wallets/${wallet.id}/entries?limit=1`)).body);
    expect(firstPage.data.map((line) => line.amount)).toEqual(['0.05']);
    const secondPage = statementPageSchema.parse(
      (await call(caller, 'GET', `/v1/wallets/${wallet.id}/entries?limit=1&cursor=${firstPage.nextCursor}`)).body,
    );
    expect(secondPage.data.map((line) => line.amount)).toEqual(['100.10']);
    expectError(await call(caller, 'GET', `/v1/wallets/${wallet.id}/entries?cursor=bm9wZQ`), 400, 'INVALID_CURSOR');
  });

  it('answers 404 WALLET_NOT_FOUND to another tenant and from the other environment, on every wallet route', async () => {
    const owner: Caller = { tenantId: await newTenant(), environment: 'live' };
    const wallet = await createWallet(owner, { ownerId: 'private' });
    await harness.ledger.commands.request(depositCommand(wallet, '5.00'));
    const strangers: Caller[] = [
      { tenantId: await newTenant(), environment: 'live' },
      { tenantId: owner.tenantId, environment: 'test' },
    ];
    for (const stranger of strangers) {
      expectError(await call(stranger, 'GET', `/v1/wallets/${wallet.id}`), 404, 'WALLET_NOT_FOUND');
      expectError(await call(stranger, 'GET', `/v1/wallets/${wallet.id}/entries`), 404, 'WALLET_NOT_FOUND');
      expectError(await call(stranger, 'POST', `/v1/wallets/${wallet.id}/freeze`, { reason: 'not mine' }), 404, 'WALLET_NOT_FOUND');
      expectError(await call(stranger, 'POST', `/v1/wallets/${wallet.id}/unfreeze`, { reason: 'not mine' }), 404, 'WALLET_NOT_FOUND');
      expect(walletPageSchema.parse((await call(stranger, 'GET', '/v1/wallets')).body).data.map((item) => item.id)).not.toContain(
        wallet.id,
      );
    }
    expect((await call(owner, 'GET', `/v1/wallets/${wallet.id}`)).body).toMatchObject({ status: 'active', balance: '5.00' });
    expectError(await call(owner, 'GET', '/v1/wallets/wl_00000000000000000000000000'), 404, 'WALLET_NOT_FOUND');
  });

  it('shows a zero balance and an empty statement for a wallet whose ledger account is not open yet', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    // As just after creation, before the ledger took the opening command: no account at all.
    const walletId = newId('wallet');
    await harness.db('wallets').insert({
      id: walletId,
      tenant_id: caller.tenantId,
      environment: 'live',
      owner_type: 'user',
      owner_id: 'unopened',
      currency_code: 'KES',
    });
    expect(await harness.ledger.db('accounts').where({ wallet_id: walletId }).first()).toBeUndefined();
    expect((await call(caller, 'GET', `/v1/wallets/${walletId}/entries`)).body).toEqual({ data: [], nextCursor: null });
    expect((await call(caller, 'GET', `/v1/wallets/${walletId}`)).body).toMatchObject({ balance: '0.00', status: 'active' });
  });

  it('answers 503 SERVICE_UNAVAILABLE, never a guessed balance, while the ledger is down', async () => {
    const caller: Caller = { tenantId: await newTenant(), environment: 'live' };
    const wallet = await createWallet(caller, { ownerId: 'outage' });
    await harness.ledger.commands.request(depositCommand(wallet, '7.00'));
    await harness.ledger.stop();
    try {
      expectError(await call(caller, 'GET', `/v1/wallets/${wallet.id}`), 503, 'SERVICE_UNAVAILABLE');
      expectError(await call(caller, 'GET', '/v1/wallets'), 503, 'SERVICE_UNAVAILABLE');
      expectError(await call(caller, 'GET', `/v1/wallets/${wallet.id}/entries`), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await harness.ledger.restart();
    }
    expect((await call(caller, 'GET', `/v1/wallets/${wallet.id}`)).body).toMatchObject({ balance: '7.00' });
  });
});
