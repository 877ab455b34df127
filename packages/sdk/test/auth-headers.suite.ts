import { SDK_ROUTES, WalletClient } from '../src';
import { journalEntry, ORGANIZATION, SESSION, TENANT } from './fixtures';
import { headerOf, signatureProblem, startTestServer, type TestServer } from './http-test-server';

const SIGNING_SECRET = 'ss_test_Jq3v8nWm2kP9xT4rL7cY1bD6fH0sA5eG';
const SIGNING_HEADER_NAMES = [
  'x-service-key-id',
  'x-service-timestamp',
  'x-service-nonce',
  'x-service-content-sha256',
  'x-service-signature',
];

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

describe('credential headers', () => {
  it('sends a secret key as X-API-Key, with the actor headers unsigned', async () => {
    const client = new WalletClient({
      baseUrl: server.baseUrl,
      auth: { type: 'secret', apiKey: 'sk_test_abc' },
      actor: { type: 'user', id: 'usr_maker' },
    });
    server.script({ status: 200, body: journalEntry('je_1') });
    await client.journal.get('je_1');
    const [request] = server.requests;
    expect(headerOf(request, 'x-api-key')).toBe('sk_test_abc');
    expect(headerOf(request, 'x-service-actor-type')).toBe('user');
    expect(headerOf(request, 'x-service-actor-id')).toBe('usr_maker');
    for (const name of [...SIGNING_HEADER_NAMES, 'authorization', 'x-system-key', 'idempotency-key'])
      expect(headerOf(request, name)).toBeUndefined();
  });

  it('sends the system key as X-System-Key', async () => {
    const client = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'system', systemKey: 'sys_secret' } });
    server.script({ status: 200, body: TENANT });
    await expect(client.system.tenants.get(TENANT.id)).resolves.toEqual(TENANT);
    expect(server.requests[0]?.url).toBe(`/v1/tenants/${TENANT.id}`);
    expect(headerOf(server.requests[0], 'x-system-key')).toBe('sys_secret');
    expect(headerOf(server.requests[0], 'x-api-key')).toBeUndefined();
  });

  it('sends a session as a bearer token', async () => {
    const client = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'session', token: 'sess_123' } });
    server.script({ status: 200, body: { data: [], nextCursor: null } });
    await client.auditEvents.list();
    expect(headerOf(server.requests[0], 'authorization')).toBe('Bearer sess_123');
  });

  it('a call can replace the actor or send none', async () => {
    const client = new WalletClient({
      baseUrl: server.baseUrl,
      auth: { type: 'secret', apiKey: 'sk_test_abc' },
      actor: { type: 'user', id: 'usr_maker' },
    });
    server.script({ status: 200, body: journalEntry('je_1') }, { status: 200, body: journalEntry('je_1') });
    await client.journal.get('je_1', { actor: { type: 'user', id: 'usr_checker' } });
    await client.journal.get('je_1', { actor: null });
    expect(headerOf(server.requests[0], 'x-service-actor-id')).toBe('usr_checker');
    expect(headerOf(server.requests[1], 'x-service-actor-id')).toBeUndefined();
  });

  it('sends the caller correlation id and exposes the one answered', async () => {
    const client = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'secret', apiKey: 'sk_test_abc' } });
    server.script(
      { status: 200, body: journalEntry('je_1') },
      { status: 200, body: journalEntry('je_1'), headers: { 'x-correlation-id': 'gw-generated-1' } },
    );
    const seen: Array<string | null> = [];
    await client.journal.get('je_1', { correlationId: 'order-42:attempt.1', onResponse: (meta) => seen.push(meta.correlationId) });
    const response = await client.send(SDK_ROUTES.getJournalEntry, { params: { id: 'je_1' } });
    expect(headerOf(server.requests[0], 'x-correlation-id')).toBe('order-42:attempt.1');
    expect(seen).toEqual(['order-42:attempt.1']);
    expect(response.correlationId).toBe('gw-generated-1');
    expect(response.status).toBe(200);
    expect(response.data.id).toBe('je_1');
  });
});

describe('signed requests', () => {
  const hmac = { type: 'hmac', keyId: 'ak_hmac_1', signingSecret: SIGNING_SECRET } as const;

  it('a GET with an unsorted, encoded query verifies over the request target as received', async () => {
    const client = new WalletClient({ baseUrl: server.baseUrl, auth: hmac });
    server.script({ status: 200, body: { data: [], nextCursor: null } });
    await client.auditEvents.list({ targetType: 'api_key', actorId: "usr o'neil é", limit: 5 });
    const [request] = server.requests;
    expect(request?.url).toBe('/v1/team/audit-events?targetType=api_key&actorId=usr%20o%27neil%20%C3%A9&limit=5');
    expect(headerOf(request, 'x-service-key-id')).toBe('ak_hmac_1');
    expect(headerOf(request, 'x-service-content-sha256')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(headerOf(request, 'x-api-key')).toBeUndefined();
    expect(signatureProblem(request!, SIGNING_SECRET)).toBeNull();
  });

  it('a POST signs the exact body bytes, non-ASCII included, and binds the actor', async () => {
    const client = new WalletClient({ baseUrl: server.baseUrl, auth: hmac, actor: { type: 'user', id: 'usr_admin' } });
    server.script({ status: 201, body: { ...ORGANIZATION, name: 'Café Kampala – ✓' } });
    const body = {
      name: 'Café Kampala – ✓',
      slug: 'cafe-kampala',
      config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX'], maxTransactionAmount: '5000000' },
    };
    await client.system.organizations.create(body);
    const [request] = server.requests;
    expect(request?.body.toString('utf8')).toBe(JSON.stringify(body));
    expect(headerOf(request, 'content-type')).toBe('application/json');
    expect(headerOf(request, 'x-service-actor-id')).toBe('usr_admin');
    expect(signatureProblem(request!, SIGNING_SECRET)).toBeNull();
    // The same request under another actor must not verify: the actor is signed.
    expect(signatureProblem({ ...request!, headers: { ...request!.headers, 'x-service-actor-id': 'usr_other' } }, SIGNING_SECRET)).toBe(
      'signature does not verify',
    );
  });

  it('percent-encodes path parameters and signs the encoded path', async () => {
    const client = new WalletClient({ baseUrl: `${server.baseUrl}/`, auth: hmac });
    server.script({ status: 200, body: journalEntry('je/1 2') });
    await client.journal.get('je/1 2');
    expect(server.requests[0]?.url).toBe('/v1/journal/je%2F1%202');
    expect(signatureProblem(server.requests[0]!, SIGNING_SECRET)).toBeNull();
  });

  it('keeps a base URL path prefix in what it sends and signs', async () => {
    const client = new WalletClient({ baseUrl: `${server.baseUrl}/gateway/`, auth: hmac });
    server.script({ status: 200, body: journalEntry('je_1') });
    await client.journal.get('je_1');
    expect(server.requests[0]?.url).toBe('/gateway/v1/journal/je_1');
    expect(signatureProblem(server.requests[0]!, SIGNING_SECRET)).toBeNull();
  });

  it('sends no credential at all without auth', async () => {
    const client = new WalletClient({ baseUrl: server.baseUrl });
    server.script({ status: 200, body: SESSION });
    const session = await client.auth.login({ email: 'ada@example.com', password: 'correct horse battery' });
    expect(session.token).toBe('sess_abc');
    for (const name of [...SIGNING_HEADER_NAMES, 'x-api-key', 'authorization', 'x-system-key'])
      expect(headerOf(server.requests[0], name)).toBeUndefined();
  });

  it('refuses an incomplete credential before sending anything', () => {
    expect(() => new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'hmac', keyId: 'ak_1', signingSecret: '' } })).toThrow(
      /signing secret/,
    );
    expect(() => new WalletClient({ baseUrl: 'not a url', auth: { type: 'secret', apiKey: 'k' } })).toThrow(/baseUrl/);
  });
});
