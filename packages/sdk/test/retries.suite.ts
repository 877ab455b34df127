import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient, WalletNetworkError } from '../src';
import { journalEntry, ORGANIZATION } from './fixtures';
import { errorBody, headerOf, signatureProblem, startTestServer, type TestServer } from './http-test-server';

const SIGNING_SECRET = 'ss_test_retry_secret_0123456789abcdef';
const TRANSFER = {
  id: 'tx_1',
  fromWalletId: 'wl_a',
  toWalletId: 'wl_b',
  amount: '100.10',
  currencyCode: 'USD',
  fee: '0.00',
  status: 'completed',
};
const ORGANIZATION_BODY = {
  name: 'Acme',
  slug: 'acme',
  config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX'], maxTransactionAmount: '5000000' },
};

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

function hmacClient(overrides: Partial<ConstructorParameters<typeof WalletClient>[0]> = {}): WalletClient {
  return new WalletClient({
    baseUrl: server.baseUrl,
    auth: { type: 'hmac', keyId: 'ak_hmac', signingSecret: SIGNING_SECRET },
    retryBaseDelayMs: 20,
    ...overrides,
  });
}

const unavailable = { status: 503, body: errorBody('SERVICE_UNAVAILABLE', 'ledger is down', 'c-503') };

describe('retries', () => {
  it('re-signs every retry with a new nonce and timestamp and the same generated Idempotency-Key', async () => {
    server.script(unavailable, unavailable, { status: 201, body: TRANSFER });
    const response = await hmacClient().request({
      method: 'POST',
      path: '/v1/transfers',
      body: { fromWalletId: 'wl_a', toWalletId: 'wl_b', amount: '100.10', currencyCode: 'USD' },
    });

    expect(response.status).toBe(201);
    expect(response.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    const keys = server.requests.map((request) => headerOf(request, 'idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(response.idempotencyKey).toBe(keys[0]);
    expect(new Set(server.requests.map((request) => headerOf(request, 'x-service-nonce'))).size).toBe(3);
    expect(new Set(server.requests.map((request) => headerOf(request, 'x-service-timestamp'))).size).toBe(3);
    for (const request of server.requests) {
      expect(signatureProblem(request, SIGNING_SECRET)).toBeNull();
      expect(request.body.toString('utf8')).toBe('{"fromWalletId":"wl_a","toWalletId":"wl_b","amount":"100.10","currencyCode":"USD"}');
    }
  });

  it('keeps a caller idempotency key across retries', async () => {
    server.script(unavailable, { status: 201, body: TRANSFER });
    await hmacClient().request({ method: 'POST', path: '/v1/transfers', body: {} }, { idempotencyKey: 'order-42' });
    expect(server.requests.map((request) => headerOf(request, 'idempotency-key'))).toEqual(['order-42', 'order-42']);
  });

  it('does not retry a POST without an idempotency key on 503', async () => {
    server.script(unavailable, { status: 201, body: ORGANIZATION });
    const error = await hmacClient({ auth: { type: 'system', systemKey: 'sys' } })
      .system.organizations.create(ORGANIZATION_BODY)
      .catch((caught: unknown) => caught);
    expect(isWalletApiError(error, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(headerOf(server.requests[0], 'idempotency-key')).toBeUndefined();
  });

  it('does not retry a POST without an idempotency key after a dropped connection', async () => {
    server.script('drop', { status: 201, body: ORGANIZATION });
    const error = await hmacClient({ auth: { type: 'system', systemKey: 'sys' } })
      .system.organizations.create(ORGANIZATION_BODY)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WalletNetworkError);
    expect((error as WalletNetworkError).attempts).toBe(1);
    expect((error as Error).message).toMatch(/may or may not have applied/);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET after a dropped connection', async () => {
    server.script('drop', { status: 200, body: journalEntry('je_1') });
    await expect(hmacClient().journal.get('je_1')).resolves.toMatchObject({ id: 'je_1' });
    expect(server.requests).toHaveLength(2);
    expect(headerOf(server.requests[0], 'x-service-nonce')).not.toBe(headerOf(server.requests[1], 'x-service-nonce'));
  });

  it('waits as long as Retry-After says on 429, then retries', async () => {
    server.script(
      { status: 429, body: errorBody('RATE_LIMITED', 'slow down', 'c-429'), headers: { 'retry-after': '1' } },
      { status: 200, body: journalEntry('je_1') },
    );
    await hmacClient().journal.get('je_1');
    expect(server.requests).toHaveLength(2);
    const waitedMs = server.requests[1]!.receivedAtMs - server.requests[0]!.receivedAtMs;
    expect(waitedMs).toBeGreaterThanOrEqual(950);
  });

  it('gives a Retry-After longer than the cap back to the caller', async () => {
    server.script({ status: 429, body: errorBody('RATE_LIMITED', 'slow down', 'c-429'), headers: { 'retry-after': '120' } });
    const error = await hmacClient()
      .journal.get('je_1')
      .catch((caught: unknown) => caught);
    expect(isWalletApiError(error, 'RATE_LIMITED')).toBe(true);
    expect((error as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(120);
    expect(server.requests).toHaveLength(1);
  });

  it('retries 409 IDEMPOTENCY_REQUEST_IN_PROGRESS of a request with an idempotency key', async () => {
    server.script(
      { status: 409, body: errorBody('IDEMPOTENCY_REQUEST_IN_PROGRESS', 'still running', 'c-409') },
      { status: 201, body: TRANSFER },
    );
    const response = await hmacClient().request({ method: 'POST', path: '/v1/transfers', body: {} }, { idempotencyKey: 'transfer-7' });
    expect(response.data).toEqual(TRANSFER);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((request) => headerOf(request, 'idempotency-key'))).toEqual(['transfer-7', 'transfer-7']);
  });

  it('retries a decision refused 409 CASE_HOLD_IN_PROGRESS after its Retry-After, under the same idempotency key', async () => {
    const decided = { status: 200, body: { id: 'pc_1', status: 'approved' } };
    server.script(
      {
        status: 409,
        body: errorBody('CASE_HOLD_IN_PROGRESS', 'hold still posting', 'c-409', { status: 'pending', awaitingLedger: true }),
        headers: { 'retry-after': '1' },
      },
      decided,
    );
    const response = await hmacClient().request(
      { method: 'POST', path: '/v1/payouts/pc_1/approve', body: { actorId: 'usr_checker' } },
      { idempotencyKey: 'decide-pc_1' },
    );
    expect(response.status).toBe(200);
    expect(server.requests.map((request) => headerOf(request, 'idempotency-key'))).toEqual(['decide-pc_1', 'decide-pc_1']);
    expect(server.requests[1]!.receivedAtMs - server.requests[0]!.receivedAtMs).toBeGreaterThanOrEqual(950);
  });

  it('never retries other 4xx, even with an idempotency key', async () => {
    server.script({ status: 409, body: errorBody('WALLET_EXISTS', 'exists', 'c-1', { walletId: 'wl_1' }) }, { status: 201, body: {} });
    const error = await hmacClient()
      .request({ method: 'POST', path: '/v1/wallets', body: {} })
      .catch((caught: unknown) => caught);
    expect(isWalletApiError(error, 'WALLET_EXISTS')).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('stops after maxRetries', async () => {
    server.script(unavailable, unavailable, unavailable, unavailable);
    const error = await hmacClient({ maxRetries: 1 })
      .journal.get('je_1')
      .catch((caught: unknown) => caught);
    expect(isWalletApiError(error, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect((error as { attempts: number }).attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('times an attempt out, retries it, and reports the timeout', async () => {
    server.script('hang', 'hang');
    const error = await hmacClient({ timeoutMs: 150, maxRetries: 1 })
      .journal.get('je_1')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WalletNetworkError);
    expect((error as WalletNetworkError).timedOut).toBe(true);
    expect((error as WalletNetworkError).attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('stops at once when the caller aborts', async () => {
    server.script(unavailable, unavailable, unavailable);
    const controller = new AbortController();
    const pending = hmacClient({ retryBaseDelayMs: 5_000 }).journal.get('je_1', { signal: controller.signal });
    // Aborted while it waits to retry: after the first answer, long before the 5 s backoff ends.
    await waitFor(async () => (server.requests.length === 1 ? true : undefined), { what: 'the first attempt', intervalMs: 10 });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });
});
