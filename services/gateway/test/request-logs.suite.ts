import http from 'node:http';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  type ApiKeyPrincipal,
  type Environment,
  type Page,
  REQUEST_LOG_SUMMARY_PATH,
  type RequestLog,
  requestLogQuerySchema,
  requestLogSchema,
  type RouteContract,
  ROUTES,
  signRequest,
} from '@wallet/contracts';
import { createDb, createLogger, createMetrics, type Db, purgeRule, signInternalToken } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { z } from 'zod';
import { requestLogRetentionRule } from '../src/features/request-logs/request-log-retention';
import { createRequestLogStore, type NewRequestLog } from '../src/features/request-logs/request-log-store';
import { createRequestLogWriter } from '../src/features/request-logs/request-log-writer';
import { type IdentityPeer, restrictions, startIdentityPeer } from './identity-peer';
import {
  gatewayEnv,
  type GatewayClient,
  INTERNAL_SECRET,
  prepareGatewayInfrastructure,
  type ResponseBody,
  startGateway,
  startUpstreamPeer,
  systemHeaders,
  type UpstreamPeer,
} from './support';

/**
 * Real parts: the gateway in-process with its own fresh database, the real credential chain
 * against an identity peer (secret keys and signed requests of several tenants and
 * environments), and the echo upstream as every other service.
 */
let identity: IdentityPeer;
let upstream: UpstreamPeer;
let client: GatewayClient;
let databaseUrl: string;
let db: Db;

const silentLogger = createLogger({ service: 'gateway-tests', level: 'silent' });

/** A write route on a service behind the gateway, so the method filter has something besides GET. */
const POST_ROUTE: RouteContract = {
  method: 'post',
  path: '/v1/test/things',
  summary: 'test only',
  surface: 'tenant',
  service: 'ledger',
  scope: 'ledger:read',
  body: z.object({}).loose(),
  success: { status: 200, schema: z.unknown() },
};

function newTenant(): string {
  return `tn_${randomUUID().slice(0, 8)}`;
}

function principal(
  keyId: string,
  tenantId: string,
  environment: Environment,
  scopes: ApiKeyPrincipal['scopes'],
  authMode: ApiKeyPrincipal['authMode'],
): ApiKeyPrincipal {
  return {
    keyId,
    tenantId,
    environment,
    authMode,
    scopes,
    restrictions: restrictions({ requireRequestSigning: authMode === 'hmac' }),
    validUntil: null,
  };
}

interface SecretKey {
  keyId: string;
  secret: string;
}

function secretKey(
  tenantId: string,
  environment: Environment = 'test',
  scopes: ApiKeyPrincipal['scopes'] = ['ledger:read', 'request_logs:read'],
): SecretKey {
  const keyId = `ak_${randomUUID().slice(0, 8)}`;
  const secret = `sk_${environment}_${randomUUID().replace(/-/g, '')}`;
  identity.secretKeys.set(secret, { secret, principal: principal(keyId, tenantId, environment, scopes, 'secret'), status: 'active' });
  return { keyId, secret };
}

function hmacKey(tenantId: string): { keyId: string; signingSecret: string } {
  const keyId = `ak_${randomUUID().slice(0, 8)}`;
  const signingSecret = `ss_${randomUUID()}`;
  identity.hmacKeys.set(keyId, {
    principal: principal(keyId, tenantId, 'test', ['ledger:read'], 'hmac'),
    signingSecrets: [{ secret: signingSecret, validUntil: null }],
    status: 'active',
  });
  return { keyId, signingSecret };
}

interface Sent {
  status: number;
  body: ResponseBody & Partial<Page<RequestLog>>;
}

function send(port: number, options: { path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const request = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const isJson = (response.headers['content-type'] ?? '').includes('json');
          resolve({ status: response.statusCode ?? 0, body: isJson && text ? (JSON.parse(text) as Sent['body']) : {} });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const withKey = (key: SecretKey, extra: Record<string, string> = {}) => ({ 'X-API-Key': key.secret, ...extra });

async function listLogs(reader: SecretKey, query: Record<string, string> = {}): Promise<Sent> {
  return send(client.gateway.port, {
    path: `/v1/developer/request-logs?${new URLSearchParams(query).toString()}`,
    headers: withKey(reader),
  });
}

/** The records matching the query once at least `count` are there: writes are batched, off the request path. */
async function logsOnceThere(reader: SecretKey, query: Record<string, string>, count = 1): Promise<RequestLog[]> {
  return waitFor(
    async () => {
      const page = await listLogs(reader, query);
      if (page.status !== 200) throw new Error(`listing request logs answered ${page.status}: ${JSON.stringify(page.body)}`);
      const data = page.body.data ?? [];
      return data.length >= count ? data : undefined;
    },
    { timeoutMs: 5_000, what: `request logs ${JSON.stringify(query)}` },
  );
}

/** Rows straight from the table, for records no tenant can read (no tenant is known). */
async function rowsOnceThere(correlationId: string): Promise<Array<Record<string, unknown>>> {
  return waitFor(
    async () => {
      const rows = (await db('request_logs').where({ correlation_id: correlationId })) as Array<Record<string, unknown>>;
      return rows.length > 0 ? rows : undefined;
    },
    { timeoutMs: 5_000, what: `request log rows of ${correlationId}` },
  );
}

const correlation = (label: string) => `${label}-${randomUUID()}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  ({ databaseUrl } = await prepareGatewayInfrastructure('gateway_request_logs'));
  identity = await startIdentityPeer();
  upstream = await startUpstreamPeer();
  client = await startGateway(
    gatewayEnv(
      { identity: identity.url, ledger: upstream.url, payments: upstream.url, treasury: upstream.url },
      { GATEWAY_REQUEST_LOG_FLUSH_INTERVAL_MS: '20' },
    ),
    {
      routes: [...ROUTES, POST_ROUTE],
    },
  );
  db = createDb(databaseUrl, { poolMax: 2 });
});

afterAll(async () => {
  await db.destroy();
  await client.gateway.close();
  await upstream.close();
  await identity.close();
});

describe('what is recorded', () => {
  it('records a forwarded request with exactly the fields of the request-log shape (docs/decisions/response-shapes.md)', async () => {
    const tenantId = newTenant();
    const key = secretKey(tenantId);
    const correlationId = correlation('ok');
    const answer = await send(client.gateway.port, {
      path: '/v1/journal?limit=5&cursor=abc',
      headers: withKey(key, {
        'X-Correlation-Id': correlationId,
        'Idempotency-Key': 'idem-ok',
        'X-Service-Actor-Type': 'team_member',
        'X-Service-Actor-Id': 'usr_ok',
      }),
    });
    expect(answer.status).toBe(200);
    const [record] = await logsOnceThere(key, { correlationId });
    expect(record).toEqual({
      id: expect.stringMatching(/^req_[0-9A-Z]{26}$/),
      correlationId,
      method: 'GET',
      path: '/v1/journal',
      status: 200,
      apiKeyId: key.keyId,
      authMode: 'secret',
      requestSignatureVerified: false,
      idempotencyKey: 'idem-ok',
      actorType: 'team_member',
      actorId: 'usr_ok',
      durationMs: expect.any(Number),
      errorCode: null,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(requestLogSchema.strict().safeParse(record).success).toBe(true);
    expect(record?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records a failed authentication with its error code and no tenant', async () => {
    const correlationId = correlation('unauthenticated');
    const answer = await send(client.gateway.port, {
      path: '/v1/journal',
      headers: { 'X-API-Key': 'sk_test_nobody_has_this_key_0000000000', 'X-Correlation-Id': correlationId },
    });
    expect(answer.status).toBe(401);
    const [row] = await rowsOnceThere(correlationId);
    expect(row).toMatchObject({
      tenant_id: null,
      environment: null,
      status: 401,
      error_code: 'INVALID_API_KEY',
      auth_mode: null,
      api_key_id: null,
      method: 'GET',
      path: '/v1/journal',
    });
  });

  it("records the error code of a service's 4xx answer", async () => {
    const key = secretKey(newTenant());
    const correlationId = correlation('upstream-404');
    const answer = await send(client.gateway.port, {
      path: '/v1/journal/je_missing?status=404&error=JOURNAL_ENTRY_NOT_FOUND',
      headers: withKey(key, { 'X-Correlation-Id': correlationId }),
    });
    expect(answer.status).toBe(404);
    const [record] = await logsOnceThere(key, { correlationId });
    expect(record).toMatchObject({
      path: '/v1/journal/je_missing',
      status: 404,
      errorCode: 'JOURNAL_ENTRY_NOT_FOUND',
      apiKeyId: key.keyId,
    });
  });

  it("records the gateway's own refusals with their code", async () => {
    const correlationId = correlation('malformed');
    const answer = await send(client.gateway.port, {
      method: 'POST',
      path: '/v1/test/things',
      headers: { 'X-Correlation-Id': correlationId },
      body: '{"broken":',
    });
    expect(answer.status).toBe(400);
    const [row] = await rowsOnceThere(correlationId);
    expect(row).toMatchObject({ method: 'POST', path: '/v1/test/things', status: 400, error_code: 'MALFORMED_JSON' });
  });

  it('records the system surface on the admin listener', async () => {
    const correlationId = correlation('admin');
    // Identity here is the key peer, which knows no such path: its 404 is not the standard error body, so no code.
    const answer = await send(client.gateway.adminPort, {
      path: '/v1/tenants/tn_1',
      headers: { ...systemHeaders, 'X-Correlation-Id': correlationId },
    });
    expect(answer.status).toBe(404);
    const [row] = await rowsOnceThere(correlationId);
    expect(row).toMatchObject({ tenant_id: null, auth_mode: 'system', status: 404, path: '/v1/tenants/tn_1', error_code: null });
  });

  it('records nothing for /healthz, /readyz, /metrics, /openapi.json, /docs or paths that are no route', async () => {
    const skipped = correlation('skipped');
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/v1/no-such-route']) {
      await send(client.gateway.port, { path, headers: { 'X-Correlation-Id': skipped } });
    }
    await send(client.gateway.adminPort, { path: '/metrics', headers: { 'X-Correlation-Id': skipped } });
    // Batches are written in order: once a later request's record is there, earlier ones would be too.
    const marker = correlation('marker');
    await send(client.gateway.port, { path: '/v1/tenants/tn_1', headers: { ...systemHeaders, 'X-Correlation-Id': marker } });
    await rowsOnceThere(marker);
    expect(await db('request_logs').where({ correlation_id: skipped }).count<Array<{ count: string }>>('* as count')).toEqual([
      { count: '0' },
    ]);
  });

  it('marks a signed request requestSignatureVerified', async () => {
    const tenantId = newTenant();
    const key = hmacKey(tenantId);
    const reader = secretKey(tenantId);
    const correlationId = correlation('signed');
    const headers = signRequest({
      keyId: key.keyId,
      signingSecret: key.signingSecret,
      timestamp: new Date().toISOString(),
      nonce: randomUUID(),
      method: 'GET',
      pathWithQuery: '/v1/journal',
      body: '',
    });
    const answer = await send(client.gateway.port, { path: '/v1/journal', headers: { ...headers, 'X-Correlation-Id': correlationId } });
    expect(answer.status).toBe(200);
    const [record] = await logsOnceThere(reader, { correlationId });
    expect(record).toMatchObject({ apiKeyId: key.keyId, authMode: 'hmac', requestSignatureVerified: true });
  });
});

describe('GET /v1/developer/request-logs', () => {
  it("shows only the caller's tenant and environment", async () => {
    const tenantA = newTenant();
    const [aTest, aLive, bTest] = [secretKey(tenantA, 'test'), secretKey(tenantA, 'live'), secretKey(newTenant(), 'test')];
    // One correlation id for all three: only tenant and environment tell them apart.
    const correlationId = correlation('isolation');
    for (const key of [aTest, aLive, bTest]) {
      expect(
        (await send(client.gateway.port, { path: '/v1/journal', headers: withKey(key, { 'X-Correlation-Id': correlationId }) })).status,
      ).toBe(200);
    }
    for (const key of [aTest, aLive, bTest]) {
      const records = await logsOnceThere(key, { correlationId });
      expect(records.map((record) => record.apiKeyId)).toEqual([key.keyId]);
    }
  });

  it('needs the request_logs:read scope', async () => {
    const key = secretKey(newTenant(), 'test', ['wallets:read']);
    const answer = await listLogs(key);
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'request_logs:read' } });
  });

  it('is in the API document, answered by the gateway', async () => {
    const document = await send(client.gateway.port, { path: '/openapi.json' });
    const operation = (document.body.paths as Record<string, { get?: { tags?: string[]; 'x-required-scope'?: string } }>)[
      '/v1/developer/request-logs'
    ]?.get;
    expect(operation).toMatchObject({ tags: ['gateway'], 'x-required-scope': 'request_logs:read' });
  });

  describe('filters', () => {
    const tenantId = newTenant();
    let reader: SecretKey;
    let plain: SecretKey;
    let signer: { keyId: string; signingSecret: string };
    const ids = {
      plain: correlation('f-plain'),
      write: correlation('f-write'),
      signed: correlation('f-signed'),
      conflict: correlation('f-conflict'),
    };
    const records: Record<keyof typeof ids, RequestLog> = {} as Record<keyof typeof ids, RequestLog>;

    beforeAll(async () => {
      reader = secretKey(tenantId);
      plain = secretKey(tenantId);
      signer = hmacKey(tenantId);
      const port = client.gateway.port;
      // A few ms apart so createdAt orders them for the from/to bounds.
      await send(port, {
        path: '/v1/journal',
        headers: withKey(plain, {
          'X-Correlation-Id': ids.plain,
          'Idempotency-Key': 'idem-filter',
          'X-Service-Actor-Type': 'team_member',
          'X-Service-Actor-Id': 'usr_filter',
        }),
      });
      await pause(5);
      await send(port, { method: 'POST', path: '/v1/test/things', headers: withKey(plain, { 'X-Correlation-Id': ids.write }), body: '{}' });
      await pause(5);
      const signed = signRequest({
        keyId: signer.keyId,
        signingSecret: signer.signingSecret,
        timestamp: new Date().toISOString(),
        nonce: randomUUID(),
        method: 'GET',
        pathWithQuery: '/v1/journal',
        body: '',
      });
      await send(port, { path: '/v1/journal', headers: { ...signed, 'X-Correlation-Id': ids.signed } });
      await pause(5);
      await send(port, {
        path: '/v1/journal?status=409&error=IDEMPOTENCY_REQUEST_IN_PROGRESS',
        headers: withKey(plain, { 'X-Correlation-Id': ids.conflict }),
      });
      for (const [name, correlationId] of Object.entries(ids) as Array<[keyof typeof ids, string]>) {
        const [record] = await logsOnceThere(reader, { correlationId });
        records[name] = record as RequestLog;
      }
    });

    const correlationIdsOf = (found: RequestLog[]) => found.map((record) => record.correlationId);

    it('correlationId', () => {
      expect(records.write).toMatchObject({ method: 'POST', path: '/v1/test/things', status: 200 });
    });

    it.each([
      ['idempotencyKey', { idempotencyKey: 'idem-filter' }, ['plain']],
      ['actorId', { actorId: 'usr_filter' }, ['plain']],
      ['method', { method: 'POST' }, ['write']],
      ['status', { status: '409' }, ['conflict']],
      ['requestSignatureVerified=true', { requestSignatureVerified: 'true' }, ['signed']],
      ['several at once', { status: '200', method: 'GET', apiKeyId: 'PLAIN' }, ['plain']],
    ] as const)('%s', async (_name, filter, expected) => {
      const query: Record<string, string> = { ...filter };
      if (query.apiKeyId === 'PLAIN') query.apiKeyId = plain.keyId;
      const found = await listLogs(reader, query);
      expect(found.status).toBe(200);
      expect(correlationIdsOf(found.body.data ?? [])).toEqual(expected.map((name) => ids[name]));
    });

    it('apiKeyId', async () => {
      const found = await listLogs(reader, { apiKeyId: signer.keyId });
      expect(correlationIdsOf(found.body.data ?? [])).toEqual([ids.signed]);
    });

    it('requestSignatureVerified=false', async () => {
      const found = (await listLogs(reader, { requestSignatureVerified: 'false' })).body.data ?? [];
      expect(found.every((record) => !record.requestSignatureVerified)).toBe(true);
      expect(correlationIdsOf(found)).toEqual(expect.arrayContaining([ids.plain, ids.write, ids.conflict]));
      expect(correlationIdsOf(found)).not.toContain(ids.signed);
    });

    it('from (inclusive) and to (exclusive), newest first', async () => {
      const found = await listLogs(reader, { from: records.write.createdAt, to: records.conflict.createdAt });
      expect(correlationIdsOf(found.body.data ?? [])).toEqual([ids.signed, ids.write]);
    });

    it('refuses malformed filters with 400 VALIDATION_ERROR', async () => {
      const malformed: Array<Record<string, string>> = [
        { status: 'abc' },
        { requestSignatureVerified: 'yes' },
        { method: 'TRACE' },
        { from: 'yesterday' },
        { limit: '0' },
        { limit: '201' },
      ];
      for (const query of malformed) {
        const answer = await listLogs(reader, query);
        expect({ query, status: answer.status, code: answer.body.error?.code }).toEqual({ query, status: 400, code: 'VALIDATION_ERROR' });
      }
    });
  });

  describe('pages', () => {
    it('pages newest first through every record with nextCursor, null after the last', async () => {
      const tenantId = newTenant();
      const reader = secretKey(tenantId);
      const traffic = secretKey(tenantId);
      const sent: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const correlationId = correlation(`page-${index}`);
        sent.push(correlationId);
        await send(client.gateway.port, { path: '/v1/journal', headers: withKey(traffic, { 'X-Correlation-Id': correlationId }) });
      }
      await logsOnceThere(reader, { apiKeyId: traffic.keyId }, 5);
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, string> = { apiKeyId: traffic.keyId, limit: '2', ...(cursor ? { cursor } : {}) };
        const page = await listLogs(reader, query);
        expect(page.status).toBe(200);
        sizes.push(page.body.data?.length ?? 0);
        seen.push(...(page.body.data ?? []).map((record) => record.correlationId));
        cursor = page.body.nextCursor ?? null;
      } while (cursor);
      expect(sizes).toEqual([2, 2, 1]);
      expect(seen).toEqual([...sent].reverse());
    });

    it('defaults to 50 a page', async () => {
      const tenantId = newTenant();
      const reader = secretKey(tenantId);
      const rows: NewRequestLog[] = Array.from({ length: 60 }, (_unused, index) => ({
        ...logRow(tenantId, new Date(Date.now() - index * 1000)),
        apiKeyId: 'ak_bulk',
      }));
      await createRequestLogStore(db, { examineMax: 10_000 }).insert(rows);
      const page = await listLogs(reader, { apiKeyId: 'ak_bulk' });
      expect(page.body.data).toHaveLength(50);
      expect(page.body.nextCursor).toEqual(expect.any(String));
    });

    it('tests at most GATEWAY_REQUEST_LOG_EXAMINE_MAX records a request: a rare status comes back on short pages with a cursor, and following them gives exactly the matches', async () => {
      const tenantId = newTenant();
      const scope = { tenantId, environment: 'test' as const };
      // Newest first: the two 500s are the oldest of twelve records.
      const rows = Array.from({ length: 12 }, (_unused, index) => ({
        ...logRow(tenantId, new Date(Date.now() - index * 1000)),
        status: index >= 10 ? 500 : 200,
      }));
      const store = createRequestLogStore(db, { examineMax: 4 });
      await store.insert(rows);
      const pages = async (filter: Record<string, string>): Promise<string[][]> => {
        const found: string[][] = [];
        let cursor: string | undefined;
        do {
          const page = await store.list(scope, requestLogQuerySchema.parse({ ...filter, ...(cursor ? { cursor } : {}) }));
          found.push(page.data.map((record) => record.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined && found.length < 20);
        return found;
      };
      expect(await pages({ status: '500', limit: '5' })).toEqual([[], [], [rows[10]?.id, rows[11]?.id]]);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('200', '500'), fc.integer({ min: 1, max: 6 }), async (status, limit) => {
          const listed = (await pages({ status, limit: String(limit) })).flat();
          expect(listed).toEqual(rows.filter((row) => String(row.status) === status).map((row) => row.id));
        }),
        { numRuns: 12 },
      );
    });

    it('refuses a malformed cursor with 400 INVALID_CURSOR', async () => {
      const reader = secretKey(newTenant());
      for (const cursor of [
        'not-a-cursor',
        Buffer.from('{"x":1}').toString('base64url'),
        Buffer.from('{"createdAt":"yesterday","id":"req_1"}').toString('base64url'),
      ]) {
        const answer = await listLogs(reader, { cursor });
        expect({ cursor, status: answer.status, code: answer.body.error?.code }).toEqual({ cursor, status: 400, code: 'INVALID_CURSOR' });
      }
    });
  });
});

function logRow(tenantId: string | null, createdAt: Date): NewRequestLog {
  return {
    id: `req_${randomUUID().replace(/-/g, '').toUpperCase().slice(0, 26)}`,
    tenantId,
    environment: tenantId ? 'test' : null,
    correlationId: correlation('row'),
    method: 'GET',
    path: '/v1/journal',
    status: 200,
    apiKeyId: null,
    authMode: tenantId ? 'secret' : null,
    requestSignatureVerified: false,
    idempotencyKey: null,
    actorType: null,
    actorId: null,
    durationMs: 3,
    errorCode: null,
    createdAt,
  };
}

describe('retention', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;

  it('a pass deletes records older than the retention, in bounded batches, and keeps the rest', async () => {
    const store = createRequestLogStore(db, { examineMax: 10_000 });
    const tenantId = newTenant();
    const old = Array.from({ length: 5 }, () => logRow(tenantId, new Date(Date.now() - 31 * DAY_MS)));
    const recent = logRow(tenantId, new Date(Date.now() - 29 * DAY_MS));
    await store.insert([...old, recent]);
    // The gateway of this file purges hourly (the default): this pass is the only one running.
    const batches: number[] = [];
    const rule = { ...requestLogRetentionRule(30, 3_600_000), batchSize: 2 };
    expect(await purgeRule(db, rule, { onBatch: (deleted) => void batches.push(deleted) })).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    expect(((await db('request_logs').where({ tenant_id: tenantId }).pluck('id')) as string[]).sort()).toEqual([recent.id]);
  });

  it('the gateway runs the purge every GATEWAY_REQUEST_LOG_PURGE_INTERVAL_MS with GATEWAY_REQUEST_LOG_RETENTION_DAYS', async () => {
    const tenantId = newTenant();
    const older = logRow(tenantId, new Date(Date.now() - 8 * DAY_MS));
    const newer = logRow(tenantId, new Date(Date.now() - 6 * DAY_MS));
    await createRequestLogStore(db, { examineMax: 10_000 }).insert([older, newer]);
    const purging = await startGateway(
      gatewayEnv({ identity: identity.url }, { GATEWAY_REQUEST_LOG_RETENTION_DAYS: '7', GATEWAY_REQUEST_LOG_PURGE_INTERVAL_MS: '1000' }),
    );
    try {
      await waitFor(async () => ((await db('request_logs').where({ id: older.id }).first()) ? undefined : true), {
        timeoutMs: 5_000,
        what: 'the old record purged',
      });
      expect(await db('request_logs').where({ id: newer.id }).pluck('id')).toEqual([newer.id]);
      const metrics = await (await fetch(`http://127.0.0.1:${purging.gateway.adminPort}/metrics`)).text();
      expect(metrics).toMatch(/^retention_rows_purged_total\{table="request_logs",service="gateway"\} [1-9]/m);
      expect(metrics).toMatch(/^retention_behind_seconds\{table="request_nonces",service="gateway"\} 0$/m);
    } finally {
      await purging.gateway.close();
    }
  });

  it('a gateway restarted more often than its hourly purge still purges: the first pass comes RETENTION_FIRST_PASS_DELAY_MS after the start', async () => {
    const tenantId = newTenant();
    const older = logRow(tenantId, new Date(Date.now() - 31 * DAY_MS));
    await createRequestLogStore(db, { examineMax: 10_000 }).insert([older]);
    const startedMs = Date.now();
    const purging = await startGateway(gatewayEnv({ identity: identity.url }, { RETENTION_FIRST_PASS_DELAY_MS: '2000' }));
    try {
      await waitFor(async () => ((await db('request_logs').where({ id: older.id }).first()) ? undefined : true), {
        timeoutMs: 10_000,
        what: 'the old record purged',
      });
      // Between half and all of the delay: instances started together do not purge together.
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(1_000);
    } finally {
      await purging.gateway.close();
    }
  });
});

describe('writing', () => {
  it('flushes what is still buffered when the gateway closes', async () => {
    // A flush interval far beyond the test: only the shutdown flush can write the record.
    const closing = await startGateway(gatewayEnv({ identity: identity.url }, { GATEWAY_REQUEST_LOG_FLUSH_INTERVAL_MS: '60000' }));
    const correlationId = correlation('shutdown');
    try {
      await send(closing.gateway.port, { path: '/v1/tenants/tn_1', headers: { ...systemHeaders, 'X-Correlation-Id': correlationId } });
      await pause(50);
      expect(await db('request_logs').where({ correlation_id: correlationId }).pluck('id')).toEqual([]);
    } finally {
      await closing.gateway.close();
    }
    expect(await db('request_logs').where({ correlation_id: correlationId }).pluck('status')).toEqual([404]);
  });

  it('drops a batch whose insert fails, counts it, and keeps accepting records', async () => {
    const brokenDb = createDb(databaseUrl, { poolMax: 1 });
    await brokenDb.destroy();
    const metrics = createMetrics('gateway-tests');
    const writer = createRequestLogWriter({
      store: createRequestLogStore(brokenDb, { examineMax: 10_000 }),
      logger: silentLogger,
      metrics,
      flushIntervalMs: 60_000,
    });
    writer.record(logRow(null, new Date()));
    writer.record(logRow(null, new Date()));
    await expect(writer.flush()).resolves.toBeUndefined();
    writer.record(logRow(null, new Date()));
    await expect(writer.close()).resolves.toBeUndefined();
    expect(await metrics.registry.getSingleMetricAsString('gateway_request_logs_dropped_total')).toContain(
      'gateway_request_logs_dropped_total{reason="insert_failed",service="gateway-tests"} 3',
    );
  });
});

describe('GET /internal/v1/request-logs/summary (admin listener, internal token)', () => {
  function summaryToken(claims: { surface: 'tenant' | 'system'; tenantId: string | null; environment: Environment | null }): string {
    return signInternalToken(INTERNAL_SECRET, { ...claims, keyId: null, scopes: ['analytics:read'], actor: null });
  }

  async function summary(
    token: string | null,
    query: Record<string, string>,
    port = client.gateway.adminPort,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const answer = await send(port, {
      path: `${REQUEST_LOG_SUMMARY_PATH}?${new URLSearchParams(query).toString()}`,
      headers: token ? { 'X-Internal-Token': token } : {},
    });
    return { status: answer.status, body: answer.body as unknown as Record<string, unknown> };
  }

  const DAY_MS = 86_400_000;
  const midnight = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString();

  it("counts a tenant's requests and its errors by status and code in the UTC days [from, to), and nobody else's", async () => {
    const from = midnight(Date.now());
    const tenantId = newTenant();
    const key = secretKey(tenantId);
    const other = secretKey(newTenant());
    const last = correlation('summary-last');
    await send(client.gateway.port, { path: '/v1/journal', headers: withKey(key) });
    await send(client.gateway.port, { path: '/v1/journal/je_a?status=404&error=JOURNAL_ENTRY_NOT_FOUND', headers: withKey(key) });
    await send(client.gateway.port, { path: '/v1/journal/je_b?status=404&error=JOURNAL_ENTRY_NOT_FOUND', headers: withKey(key) });
    await send(client.gateway.port, { path: '/v1/journal?status=422&error=VALIDATION_ERROR', headers: withKey(key) });
    await send(client.gateway.port, { path: '/v1/journal?status=404&error=JOURNAL_ENTRY_NOT_FOUND', headers: withKey(other) });
    await send(client.gateway.port, { path: '/v1/journal', headers: withKey(key, { 'X-Correlation-Id': last }) });
    // Straight from the table: listing through the gateway would be one more request of the tenant.
    await rowsOnceThere(last);
    const to = midnight(Date.now() + DAY_MS);

    const own = await summary(summaryToken({ surface: 'tenant', tenantId, environment: 'test' }), { from, to, environment: 'test' });
    expect(own).toEqual({
      status: 200,
      body: {
        totalRequests: 5,
        errorCount: 3,
        byStatus: [
          { status: 404, count: 2 },
          { status: 422, count: 1 },
        ],
        byErrorCode: [
          { errorCode: 'JOURNAL_ENTRY_NOT_FOUND', count: 2 },
          { errorCode: 'VALIDATION_ERROR', count: 1 },
        ],
      },
    });
    // A tenant token reads its own tenant and environment whatever the query asks for.
    const asked = await summary(summaryToken({ surface: 'tenant', tenantId, environment: 'test' }), {
      from,
      to,
      environment: 'live',
      tenantId: 'tn_other',
    });
    expect(asked.body.totalRequests).toBe(5);
    const platform = await summary(summaryToken({ surface: 'system', tenantId: null, environment: null }), {
      from,
      to,
      environment: 'test',
    });
    expect(platform.body.errorCount).toBeGreaterThanOrEqual(4);
    const later = await summary(summaryToken({ surface: 'tenant', tenantId, environment: 'test' }), {
      from: to,
      to: midnight(Date.parse(to) + DAY_MS),
      environment: 'test',
    });
    expect(later.body).toMatchObject({ totalRequests: 0, errorCount: 0 });
  });

  it('answers 400 for a range that does not start and end at 00:00 UTC: requests are counted by day', async () => {
    const token = summaryToken({ surface: 'system', tenantId: null, environment: null });
    const today = midnight(Date.now());
    const answer = await summary(token, {
      from: new Date(Date.parse(today) + 1_000).toISOString(),
      to: midnight(Date.now() + DAY_MS),
      environment: 'test',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: [{ path: 'from', message: 'must be 00:00 UTC: requests are counted by UTC day' }] },
    });
    expect((await summary(token, { from: today, to: '2030-01-01T00:00:00+01:00', environment: 'test' })).status).toBe(400);
  });

  it('needs a valid internal token and is not served on the public listener', async () => {
    const query = { from: midnight(Date.now()), to: midnight(Date.now() + DAY_MS), environment: 'test' };
    expect((await summary(null, query)).status).toBe(401);
    expect((await summary(`${summaryToken({ surface: 'system', tenantId: null, environment: null })}x`, query)).status).toBe(401);
    expect((await summary(summaryToken({ surface: 'system', tenantId: null, environment: null }), query, client.gateway.port)).status).toBe(
      404,
    );
  });
});
