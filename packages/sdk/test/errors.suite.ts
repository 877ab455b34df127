import { isWalletApiError, WalletApiError, WalletClient, WalletRequestValidationError, WalletResponseValidationError } from '../src';
import { journalEntry, TENANT } from './fixtures';
import { errorBody, headerOf, startTestServer, type TestServer } from './http-test-server';

let server: TestServer;
let client: WalletClient;
beforeEach(async () => {
  server = await startTestServer();
  client = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'secret', apiKey: 'sk_test_abc' }, retryBaseDelayMs: 10 });
});
afterEach(async () => {
  await server.close();
});

describe('API errors', () => {
  it('turns an error body into a WalletApiError with its code, details and correlation id', async () => {
    server.script({
      status: 403,
      body: errorBody('INSUFFICIENT_SCOPE', 'This key lacks ledger:read', 'corr-from-body', { requiredScope: 'ledger:read' }),
      headers: { 'x-correlation-id': 'corr-from-header' },
    });
    const error = await client.journal.get('je_1').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WalletApiError);
    expect(isWalletApiError(error)).toBe(true);
    expect(isWalletApiError(error, 'INSUFFICIENT_SCOPE')).toBe(true);
    expect(isWalletApiError(error, 'NOT_FOUND')).toBe(false);
    const apiError = error as WalletApiError;
    expect(apiError).toMatchObject({
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      serverCode: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'ledger:read' },
      correlationId: 'corr-from-body',
      attempts: 1,
    });
    expect(apiError.message).toBe('This key lacks ledger:read');
    expect(apiError.retryAfterSeconds).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 4xx GET', async () => {
    server.script({ status: 404, body: errorBody('NOT_FOUND', 'No such entry', 'c-404') }, { status: 200, body: journalEntry('je_1') });
    await expect(client.journal.get('je_1')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps a code newer than this SDK, and survives a body that is not the API error shape', async () => {
    server.script(
      { status: 422, body: errorBody('BRAND_NEW_RULE', 'new rule', 'c-1') },
      { status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html', 'x-correlation-id': 'edge-1' } },
    );
    await expect(client.journal.get('je_1')).rejects.toMatchObject({
      status: 422,
      code: 'UNKNOWN_ERROR',
      serverCode: 'BRAND_NEW_RULE',
      message: 'new rule',
    });
    await expect(client.journal.get('je_1')).rejects.toMatchObject({
      status: 502,
      code: 'UNKNOWN_ERROR',
      serverCode: null,
      correlationId: 'edge-1',
    });
  });

  it('is recognised by its brand across copies of the SDK', () => {
    const lookalike = Object.create(null) as Record<symbol | string, unknown>;
    lookalike[Symbol.for('@wallet/sdk/WalletApiError')] = true;
    lookalike.code = 'NOT_FOUND';
    expect(isWalletApiError(lookalike, 'NOT_FOUND')).toBe(true);
    expect(isWalletApiError(new Error('NOT_FOUND'))).toBe(false);
  });
});

describe('contract checks', () => {
  it('fails loudly when a success body drifts from the route schema', async () => {
    const { lines: _lines, ...withoutLines } = journalEntry('je_1');
    server.script({ status: 200, body: withoutLines });
    const error = await client.journal.get('je_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WalletResponseValidationError);
    expect((error as WalletResponseValidationError).issues.map((issue) => issue.path.join('.'))).toContain('lines');
    expect((error as WalletResponseValidationError).body).toEqual(withoutLines);
  });

  it('catches an amount that comes back as a number', async () => {
    const entry = journalEntry('je_1');
    server.script({ status: 200, body: { ...entry, lines: entry.lines.map((line) => ({ ...line, amount: 100.1 })) } });
    await expect(client.journal.get('je_1')).rejects.toBeInstanceOf(WalletResponseValidationError);
  });

  it('can hand back an unchecked body when asked', async () => {
    server.script({ status: 200, body: { id: 'je_1', surprise: true } });
    await expect(client.journal.get('je_1', { validateResponse: false })).resolves.toEqual({ id: 'je_1', surprise: true });
  });

  it('refuses a body that fails the route schema without sending it', async () => {
    const system = client.withAuth({ type: 'system', systemKey: 'sys' });
    const badAmount = {
      name: 'Acme',
      slug: 'acme',
      config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX'], maxTransactionAmount: 5000000 },
    };
    const error = await system.system.tenants.create(badAmount as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WalletRequestValidationError);
    expect((error as WalletRequestValidationError).issues[0]?.path).toEqual(['config', 'maxTransactionAmount']);
    expect(server.requests).toHaveLength(0);
  });

  it('sends amounts as decimal strings, exactly as given', async () => {
    const system = client.withAuth({ type: 'system', systemKey: 'sys' });
    server.script({ status: 201, body: TENANT });
    await system.system.tenants.create({
      name: 'Acme',
      slug: 'acme',
      config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX'], maxTransactionAmount: '5000000.10' },
    });
    expect(server.requests[0]?.body.toString('utf8')).toContain('"maxTransactionAmount":"5000000.10"');
    expect(headerOf(server.requests[0], 'x-system-key')).toBe('sys');
  });

  it('refuses a query that fails the route schema, and a malformed correlation id', async () => {
    await expect(client.journal.list({ limit: 500 })).rejects.toBeInstanceOf(WalletRequestValidationError);
    await expect(client.journal.get('je_1', { correlationId: 'has spaces' })).rejects.toBeInstanceOf(WalletRequestValidationError);
    await expect(client.journal.get('..')).rejects.toBeInstanceOf(WalletRequestValidationError);
    expect(server.requests).toHaveLength(0);
  });
});
