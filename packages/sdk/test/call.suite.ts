import { ROUTES, type RouteContract } from '@wallet/contracts';
import { z } from 'zod';
import { WalletClient, WalletRequestValidationError } from '../src';
import { SESSION } from './fixtures';
import { headerOf, startTestServer, type TestServer } from './http-test-server';

const API_KEY = {
  id: 'ak 1/2',
  tenantId: 'tn_1',
  name: 'ci',
  authMode: 'secret',
  environment: 'test',
  scopes: ['ledger:read'],
  restrictions: { requireRequestSigning: false, requireActorHeaders: false, allowedIps: null },
  keyPrefix: 'sk_test_',
  last4: 'abcd',
  status: 'active',
  expiresAt: null,
  revokedAt: null,
  createdAt: '2026-11-22T10:00:00.000Z',
};

/** A route as a team would define one before it reaches packages/contracts. */
const createWallet = {
  method: 'post',
  path: '/v1/wallets',
  summary: 'Create a wallet',
  surface: 'tenant',
  service: 'ledger',
  scope: 'wallets:create',
  body: z.object({ ownerType: z.enum(['user', 'branch', 'company']), ownerId: z.string().min(1), currencyCode: z.string().length(3) }),
  success: { status: 201, schema: z.object({ id: z.string(), balance: z.string() }) },
} as const satisfies RouteContract;

let server: TestServer;
let client: WalletClient;
beforeEach(async () => {
  server = await startTestServer();
  client = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'secret', apiKey: 'sk_test_abc' } });
});
afterEach(async () => {
  await server.close();
});

describe('call on a route contract', () => {
  it('takes a route of the contracts list: path params encoded, response checked', async () => {
    const getKey = ROUTES.find((route) => route.method === 'get' && route.path === '/v1/developer/api-keys/{id}');
    expect(getKey).toBeDefined();
    server.script({ status: 200, body: API_KEY }, { status: 200, body: { ...API_KEY, status: 'lost' } });
    await expect(client.call(getKey!, { params: { id: 'ak 1/2' } })).resolves.toEqual(API_KEY);
    expect(server.requests[0]?.url).toBe('/v1/developer/api-keys/ak%201%2F2');
    await expect(client.call(getKey!, { params: { id: 'ak_1' } })).rejects.toThrow(/does not match its contract/);
  });

  it('a route that creates a wallet gets one Idempotency-Key per call; its body is checked first', async () => {
    server.script({ status: 201, body: { id: 'wl_1', balance: '0' } }, { status: 201, body: { id: 'wl_2', balance: '0' } });
    const wallet = await client.call(createWallet, { body: { ownerType: 'user', ownerId: 'alice', currencyCode: 'UGX' } });
    await client.call(createWallet, { body: { ownerType: 'user', ownerId: 'bob', currencyCode: 'UGX' } }, { idempotencyKey: 'wallet-bob' });
    expect(wallet).toEqual({ id: 'wl_1', balance: '0' });
    expect(headerOf(server.requests[0], 'idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(headerOf(server.requests[1], 'idempotency-key')).toBe('wallet-bob');

    await expect(
      client.call(createWallet, { body: { ownerType: 'robot' as 'user', ownerId: '', currencyCode: 'UGX' } }),
    ).rejects.toBeInstanceOf(WalletRequestValidationError);
    expect(server.requests).toHaveLength(2);
  });

  it('serialises arrays and skips absent query values', async () => {
    server.script({ status: 200, body: {} });
    await client.request({ method: 'GET', path: '/v1/wallets', query: { status: ['active', 'frozen'], ownerId: undefined, limit: 10 } });
    expect(server.requests[0]?.url).toBe('/v1/wallets?status=active&status=frozen&limit=10');
  });

  it('continues a login as its session', async () => {
    server.script({ status: 200, body: SESSION }, { status: 200, body: { data: [], nextCursor: null } });
    const anonymous = new WalletClient({ baseUrl: server.baseUrl });
    const session = await anonymous.auth.login({ email: 'ada@example.com', password: 'correct horse battery', tenantSlug: 'acme' });
    await anonymous.withAuth({ type: 'session', token: session.token }).team.list({ orgRole: 'operator' });
    expect(JSON.parse(server.requests[0]!.body.toString('utf8'))).toEqual({
      email: 'ada@example.com',
      password: 'correct horse battery',
      tenantSlug: 'acme',
    });
    expect(server.requests[1]?.url).toBe('/v1/team?orgRole=operator');
    expect(headerOf(server.requests[1], 'authorization')).toBe('Bearer sess_abc');
  });
});
