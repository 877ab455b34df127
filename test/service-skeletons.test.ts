import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import { routeName, type RunningService, signInternalToken } from '@wallet/kit';
import { start as startPayments } from '../services/payments/src/main';
import { PAYMENTS_MOVEMENTS } from '../services/payments/src/movements';
import { start as startTreasury } from '../services/treasury/src/main';
import { TREASURY_MOVEMENTS } from '../services/treasury/src/movements';

// Real parts: a fresh PostgreSQL database and RabbitMQ vhost, each service in-process.
describe.each([
  ['payments', startPayments, PAYMENTS_MOVEMENTS],
  ['treasury', startTreasury, TREASURY_MOVEMENTS],
] as const)('%s service', (name, start, movements) => {
  const secret = `${name}-tests-internal-token-secret-0123456789`;
  let service: RunningService;
  let base: string;

  beforeAll(async () => {
    service = await start({
      ...process.env,
      [`${name.toUpperCase()}_DATABASE_URL`]: await createTestDatabase(name),
      AMQP_URL: await createTestVhost(name),
      [`${name.toUpperCase()}_PORT`]: '0',
      INTERNAL_TOKEN_SECRET: secret,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    });
    base = `http://127.0.0.1:${service.port}`;
  });

  afterAll(async () => {
    await service?.close();
  });

  it('answers GET /healthz', async () => {
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', service: name });
  });

  it('is ready once its database is migrated and its broker connected', async () => {
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      service: name,
      checks: [
        { name: 'database', status: 'ok' },
        { name: 'broker', status: 'ok' },
      ],
    });
  });

  it('exposes request durations on GET /metrics', async () => {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('http_request_duration_seconds');
  });

  it('refuses a /v1 call without an internal token', async () => {
    const response = await fetch(`${base}/v1/anything`, { headers: { 'x-correlation-id': `${name}-test-1` } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 'INVALID_INTERNAL_TOKEN', message: expect.any(String), correlationId: `${name}-test-1` },
    });
  });

  // main mounts no money feature by name: only its list (src/movements.ts) ties a movement's routes to the feature that answers them.
  it('routes every route of its listed money movements to a feature', async () => {
    const token = signInternalToken(secret, { surface: 'system', tenantId: null, environment: null, keyId: null, scopes: [], actor: null });
    const unrouted = async (route: { method: string; path: string }) => {
      const response = await fetch(`${base}${route.path.replace(/\{\w+\}/g, 'unknown')}`, {
        method: route.method.toUpperCase(),
        headers: { 'x-internal-token': token, 'content-type': 'application/json' },
        body: route.method === 'get' ? undefined : '{}',
      });
      return ((await response.json()) as { error?: { message?: string } }).error?.message === 'No such route';
    };
    expect(await unrouted({ method: 'post', path: '/v1/no-such-movement/{id}' })).toBe(true);
    const routes = movements.flatMap((movement) => movement.routes);
    expect(routes.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const route of routes) if (await unrouted(route)) missing.push(routeName(route));
    expect(missing).toEqual([]);
  });
});
