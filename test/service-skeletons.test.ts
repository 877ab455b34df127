import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import type { RunningService } from '@wallet/kit';
import { start as startPayments } from '../services/payments/src/main';
import { start as startTreasury } from '../services/treasury/src/main';

// Real parts: a fresh PostgreSQL database and RabbitMQ vhost, each service in-process.
describe.each([
  ['payments', startPayments],
  ['treasury', startTreasury],
] as const)('%s service', (name, start) => {
  let service: RunningService;
  let base: string;

  beforeAll(async () => {
    service = await start({
      ...process.env,
      [`${name.toUpperCase()}_DATABASE_URL`]: await createTestDatabase(name),
      AMQP_URL: await createTestVhost(name),
      [`${name.toUpperCase()}_PORT`]: '0',
      INTERNAL_TOKEN_SECRET: `${name}-tests-internal-token-secret-0123456789`,
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
});
