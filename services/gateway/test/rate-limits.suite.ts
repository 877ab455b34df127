import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { type RouteContract, ROUTES } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { z } from 'zod';
import { type CredentialGrant, tenantAuthenticators } from '../src/features/auth/authenticators';
import { createBucketStore } from '../src/features/rate-limits/bucket-store';
import { addressBucketKey } from '../src/features/rate-limits/rate-limiter';
import {
  gatewayEnv,
  type GatewayClient,
  prepareGatewayInfrastructure,
  type ResponseBody,
  startGateway,
  startUpstreamPeer,
  systemHeaders,
  type UpstreamPeer,
} from './support';

/**
 * Real parts: gateway instances in-process sharing one fresh database (the buckets), the echo
 * upstream behind them, and requests from distinct loopback addresses (127.0.0.0/8) so each
 * test has its own address bucket. Credentials come from in-memory resolvers through the real
 * authenticator chain.
 */
let upstream: UpstreamPeer;
let databaseUrl: string;
let db: Db;

/** Every credential the in-memory resolvers know: secret keys and session tokens alike. */
const secretKeys = new Map<string, CredentialGrant>();
const sessions = new Map<string, CredentialGrant>();
const authenticators = () =>
  tenantAuthenticators({
    secretKey: async (secret) => secretKeys.get(secret) ?? null,
    session: async (token) => sessions.get(token) ?? null,
  });

function newTenant(): string {
  return `tn_${randomUUID().slice(0, 8)}`;
}

/** A fresh key of the tenant; unique ids keep every test's buckets its own. */
function newKey(tenantId: string, scopes: string[] = ['ledger:read']): { secret: string; keyId: string } {
  const keyId = `ak_${randomUUID().slice(0, 8)}`;
  const secret = `sk_test_${randomUUID().replace(/-/g, '')}`;
  secretKeys.set(secret, { tenantId, environment: 'test', keyId, scopes });
  return { secret, keyId };
}

function newSession(tenantId: string): { token: string; memberId: string } {
  const memberId = `usr_${randomUUID().slice(0, 8)}`;
  const token = `session_${randomUUID()}`;
  sessions.set(token, {
    tenantId,
    environment: 'test',
    keyId: null,
    scopes: ['ledger:read'],
    actor: { type: 'team_member', id: memberId },
  });
  return { token, memberId };
}

let nextAddress = 10;
/** A loopback address no other test of this file sends from. */
function newAddress(): string {
  nextAddress += 1;
  return `127.0.0.${nextAddress}`;
}

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: ResponseBody;
}

/** node:http, for `localAddress`: the gateway sees each test's requests come from its own address. */
function send(
  client: GatewayClient,
  options: { path?: string; method?: string; headers?: Record<string, string>; body?: string; from?: string },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const request = http.request(
      {
        host: '127.0.0.1',
        port: client.gateway.port,
        method: options.method ?? 'GET',
        path: options.path ?? '/v1/journal',
        headers,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? (JSON.parse(text) as ResponseBody) : {} });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const withKey = (secret: string) => ({ 'X-API-Key': secret });

function rateLimitHeaders(sent: Sent): { limit: string | undefined; remaining: string | undefined; reset: string | undefined } {
  return {
    limit: sent.headers['ratelimit-limit'] as string | undefined,
    remaining: sent.headers['ratelimit-remaining'] as string | undefined,
    reset: sent.headers['ratelimit-reset'] as string | undefined,
  };
}

/** A public route, as login and invites will be: no credential, limited per address only. */
const PUBLIC_ROUTE: RouteContract = {
  method: 'post',
  path: '/v1/test/public-ping',
  summary: 'test only',
  surface: 'public',
  service: 'identity',
  body: z.object({}).loose(),
  success: { status: 200, schema: z.unknown() },
};

/**
 * Rates low enough that no token comes back while a test runs (one per 100 s), and bursts
 * small enough to reach: key 4, tenant 6, address 3.
 */
const SLOW_LIMITS = {
  GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0.01',
  GATEWAY_RATE_LIMIT_KEY_BURST: '4',
  GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0.01',
  GATEWAY_RATE_LIMIT_TENANT_BURST: '6',
  GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0.01',
  GATEWAY_RATE_LIMIT_IP_BURST: '3',
};

let first: GatewayClient;
let second: GatewayClient;

beforeAll(async () => {
  ({ databaseUrl } = await prepareGatewayInfrastructure('gateway_rate_limits'));
  upstream = await startUpstreamPeer();
  const env = gatewayEnv({ identity: upstream.url }, SLOW_LIMITS);
  const options = { tenantAuthenticators: authenticators(), routes: [...ROUTES, PUBLIC_ROUTE] };
  first = await startGateway(env, options);
  second = await startGateway(env, options);
  db = createDb(databaseUrl, { poolMax: 2 });
});

afterAll(async () => {
  await db.destroy();
  await first.gateway.close();
  await second.gateway.close();
  await upstream.close();
});

describe('buckets shared by every gateway instance', () => {
  it('limits a key across two instances together: its burst of 4 is spent once, not once per instance', async () => {
    const key = newKey(newTenant());
    const before = upstream.received.length;
    const statuses: number[] = [];
    for (const client of [first, second, first, second, first, second])
      statuses.push((await send(client, { headers: withKey(key.secret) })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(upstream.received.length).toBe(before + 4);
  });

  it('lets exactly the burst through when requests race on both instances at once', async () => {
    const key = newKey(newTenant());
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_unused, index) => send(index % 2 === 0 ? first : second, { headers: withKey(key.secret) })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(4).fill(200), ...Array(8).fill(429)]);
  });
});

describe('answers of a limited route', () => {
  it('counts down RateLimit-Remaining of the tightest bucket on every answer', async () => {
    const key = newKey(newTenant());
    const seen = [];
    for (let index = 0; index < 4; index += 1) seen.push(rateLimitHeaders(await send(first, { headers: withKey(key.secret) })));
    // The key (burst 4) is tighter than the tenant (burst 6); one token per 100 s refills it in 100 s per token spent.
    expect(seen.map((headers) => [headers.limit, headers.remaining])).toEqual([
      ['4', '3'],
      ['4', '2'],
      ['4', '1'],
      ['4', '0'],
    ]);
    expect(seen.map((headers) => Number(headers.reset))).toEqual([100, 200, 300, 400]);
  });

  it('refuses over the limit with 429 RATE_LIMITED in the standard error body, Retry-After and RateLimit-* headers, and forwards nothing', async () => {
    const key = newKey(newTenant());
    for (let index = 0; index < 4; index += 1) expect((await send(first, { headers: withKey(key.secret) })).status).toBe(200);
    const before = upstream.received.length;
    const refused = await send(second, { headers: { ...withKey(key.secret), 'X-Correlation-Id': 'limited-1' } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: expect.any(String),
        details: { retryAfterSeconds: expect.any(Number) },
        correlationId: 'limited-1',
      },
    });
    // One token per 100 s: the next one is about 100 s away.
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(90);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(100);
    expect(refused.body.error?.details).toEqual({ retryAfterSeconds: Number(refused.headers['retry-after']) });
    expect(rateLimitHeaders(refused)).toEqual({ limit: '4', remaining: '0', reset: expect.stringMatching(/^\d+$/) });
    expect(refused.headers['x-correlation-id']).toBe('limited-1');
    expect(upstream.received.length).toBe(before);
  });
});

describe('the tenant bucket', () => {
  it('is shared by every key of the tenant, and a refusal by it gives back the key token it took', async () => {
    const tenantId = newTenant();
    const [one, two] = [newKey(tenantId), newKey(tenantId)];
    for (let index = 0; index < 4; index += 1) expect((await send(first, { headers: withKey(one.secret) })).status).toBe(200);
    const secondKey = [];
    for (let index = 0; index < 3; index += 1) secondKey.push(await send(second, { headers: withKey(two.secret) }));
    expect(secondKey.map((sent) => sent.status)).toEqual([200, 200, 429]);
    // Tenant burst 6: the tenant, not the key, is the tightest bucket by the sixth request.
    expect(rateLimitHeaders(secondKey[1] as Sent)).toMatchObject({ limit: '6', remaining: '0' });
    expect(rateLimitHeaders(secondKey[2] as Sent)).toMatchObject({ limit: '6', remaining: '0' });

    const bucket = await db('rate_limit_buckets')
      .where({ bucket_key: `key:${two.keyId}` })
      .first<{ tokens: number }>();
    // Two requests passed (4 - 2); the refused third spent nothing.
    expect(bucket.tokens).toBeGreaterThanOrEqual(2);
    expect(bucket.tokens).toBeLessThan(2.5);
  });

  it('does not limit another tenant', async () => {
    const tenantId = newTenant();
    const key = newKey(tenantId);
    for (let index = 0; index < 4; index += 1) await send(first, { headers: withKey(key.secret) });
    const other = newKey(newTenant());
    expect((await send(first, { headers: withKey(other.secret) })).status).toBe(200);
  });
});

describe('the session bucket', () => {
  it('limits a dashboard session by its team member, another member of the tenant keeps its own', async () => {
    const tenantId = newTenant();
    const member = newSession(tenantId);
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1)
      statuses.push((await send(first, { headers: { Authorization: `Bearer ${member.token}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const colleague = newSession(tenantId);
    expect((await send(second, { headers: { Authorization: `Bearer ${colleague.token}` } })).status).toBe(200);
  });
});

describe('the address bucket', () => {
  it('limits a public route per client address', async () => {
    const address = newAddress();
    const before = upstream.received.length;
    const answers = [];
    for (let index = 0; index < 4; index += 1)
      answers.push(
        await send(index % 2 === 0 ? first : second, { method: 'POST', path: '/v1/test/public-ping', body: '{}', from: address }),
      );
    expect(answers.map((sent) => sent.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((sent) => rateLimitHeaders(sent).remaining)).toEqual(['2', '1', '0', '0']);
    expect(answers[3]?.body.error?.code).toBe('RATE_LIMITED');
    expect(upstream.received.length).toBe(before + 3);
    expect((await send(first, { method: 'POST', path: '/v1/test/public-ping', body: '{}', from: newAddress() })).status).toBe(200);
  });

  it('charges failed authentications to the address; once spent, even a valid credential gets no answer from it', async () => {
    const address = newAddress();
    const failures = [];
    for (let index = 0; index < 3; index += 1)
      failures.push(await send(first, { headers: withKey(`sk_test_guess_${index}`), from: address }));
    expect(failures.map((sent) => [sent.status, sent.body.error?.code, rateLimitHeaders(sent).remaining])).toEqual([
      [401, 'INVALID_API_KEY', '2'],
      [401, 'INVALID_API_KEY', '1'],
      [401, 'INVALID_API_KEY', '0'],
    ]);
    const key = newKey(newTenant());
    const before = upstream.received.length;
    const blocked = await send(second, { headers: withKey(key.secret), from: address });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error?.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(upstream.received.length).toBe(before);
    // From elsewhere the same key works.
    expect((await send(second, { headers: withKey(key.secret), from: newAddress() })).status).toBe(200);
  });

  it('is not spent by requests whose credentials work', async () => {
    const address = newAddress();
    const key = newKey(newTenant());
    // Four passes, more than the address burst of 3.
    for (let index = 0; index < 4; index += 1)
      expect((await send(first, { headers: withKey(key.secret), from: address })).status).toBe(200);
    const failure = await send(first, { headers: withKey('sk_test_wrong'), from: address });
    expect(failure.status).toBe(401);
    expect(rateLimitHeaders(failure)).toMatchObject({ limit: '3', remaining: '2' });
  });

  it('keys IPv4 addresses as they are and IPv6 clients by their /64', () => {
    expect(addressBucketKey('10.1.2.3')).toBe('ip:10.1.2.3');
    expect(addressBucketKey('::ffff:10.1.2.3')).toBe('ip:10.1.2.3');
    expect(addressBucketKey('2001:db8:1:2:aaaa::1')).toBe('ip6:2001:0db8:0001:0002');
    expect(addressBucketKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('ip6:2001:0db8:0001:0002');
    expect(addressBucketKey('::1')).toBe('ip6:0000:0000:0000:0000');
    expect(addressBucketKey(undefined)).toBeNull();
  });
});

describe('gateway_rate_limit_rejections_total on the admin listener', () => {
  async function rejections(client: GatewayClient): Promise<Record<string, number>> {
    const text = await (await fetch(`${client.adminUrl}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const match of text.matchAll(/^gateway_rate_limit_rejections_total\{([^}]*)\} (\d+)$/gm)) {
      const bucket = /bucket="([^"]+)"/.exec(match[1] ?? '')?.[1];
      if (bucket) counts[bucket] = Number(match[2]);
    }
    return counts;
  }

  it('counts each 429 by the bucket that refused it, on the instance that answered it', async () => {
    const before = await rejections(first);
    expect(Object.keys(before).sort()).toEqual(['address', 'credential', 'tenant']);
    const beforeSecond = await rejections(second);

    // The key's burst of 4, then one refused by the key.
    const key = newKey(newTenant());
    for (let index = 0; index < 5; index += 1) await send(first, { headers: withKey(key.secret) });
    // The tenant's burst of 6 over two keys: the seventh request is refused by the tenant.
    const tenantId = newTenant();
    const [one, two] = [newKey(tenantId), newKey(tenantId)];
    for (let index = 0; index < 4; index += 1) await send(first, { headers: withKey(one.secret) });
    const statuses = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await send(first, { headers: withKey(two.secret) })).status);
    expect(statuses).toEqual([200, 200, 429]);
    // An address's burst of 3 on a public route.
    const address = newAddress();
    for (let index = 0; index < 4; index += 1)
      await send(first, { method: 'POST', path: '/v1/test/public-ping', body: '{}', from: address });

    expect(await rejections(first)).toEqual({
      credential: (before.credential ?? 0) + 1,
      tenant: (before.tenant ?? 0) + 1,
      address: (before.address ?? 0) + 1,
    });
    expect(await rejections(second)).toEqual(beforeSecond);
  });
});

describe('system-key requests', () => {
  it('are never limited and carry no RateLimit headers', async () => {
    const address = newAddress();
    const before = upstream.received.length;
    for (let index = 0; index < 8; index += 1) {
      const sent = await send(index % 2 === 0 ? first : second, { path: '/v1/tenants/tn_1', headers: systemHeaders, from: address });
      expect(sent.status).toBe(200);
      expect(sent.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(upstream.received.length).toBe(before + 8);
  });
});

describe('refill and switches', () => {
  let fast: GatewayClient;
  beforeAll(async () => {
    // Key: one token, one a second (slow enough that a loaded machine's two sends stay inside it). Address bucket off.
    fast = await startGateway(
      gatewayEnv(
        { identity: upstream.url },
        { GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '1', GATEWAY_RATE_LIMIT_KEY_BURST: '1', GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0' },
      ),
      { tenantAuthenticators: authenticators() },
    );
  });
  afterAll(async () => {
    await fast.gateway.close();
  });

  it('gives tokens back as time passes', async () => {
    const key = newKey(newTenant());
    expect((await send(fast, { headers: withKey(key.secret) })).status).toBe(200);
    const refused = await send(fast, { headers: withKey(key.secret) });
    expect(refused.status).toBe(429);
    // 1 s per token, rounded up to whole seconds.
    expect(refused.headers['retry-after']).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await send(fast, { headers: withKey(key.secret) })).status).toBe(200);
  });

  it('turns a bucket off with a rate of 0: failed authentications are never refused by address', async () => {
    const address = newAddress();
    for (let index = 0; index < 45; index += 1) {
      const sent = await send(fast, { headers: withKey(`sk_test_guess_${index}`), from: address });
      expect(sent.status).toBe(401);
      expect(sent.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('refuses a burst below 1 or a negative rate at start, naming the variable', async () => {
    await expect(startGateway(gatewayEnv({ identity: upstream.url }, { GATEWAY_RATE_LIMIT_KEY_BURST: '0' }))).rejects.toThrow(
      /GATEWAY_RATE_LIMIT_KEY_BURST/,
    );
    await expect(startGateway(gatewayEnv({ identity: upstream.url }, { GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '-1' }))).rejects.toThrow(
      /GATEWAY_RATE_LIMIT_TENANT_PER_SECOND/,
    );
  });
});

describe('purging idle buckets', () => {
  it('deletes buckets idle long enough to be full again, and keeps the others', async () => {
    const store = createBucketStore(db);
    const refilled = `purge:${randomUUID()}`;
    const stillRefilling = `purge:${randomUUID()}`;
    // 1000 tokens per second up to 1: full again 1 ms after use. 0.001 per second up to 10: 10 000 s.
    await store.take(refilled, { ratePerSecond: 1000, burst: 1 });
    await store.take(stillRefilling, { ratePerSecond: 0.001, burst: 10 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    let purged = 0;
    for (let deleted = -1; deleted !== 0;) {
      deleted = await store.purgeIdle(1);
      purged += deleted;
    }
    expect(purged).toBeGreaterThanOrEqual(1);
    const left = (await db('rate_limit_buckets').whereIn('bucket_key', [refilled, stillRefilling]).pluck('bucket_key')) as string[];
    expect(left).toEqual([stillRefilling]);
  });
});
