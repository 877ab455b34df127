import { randomUUID } from 'node:crypto';
import { verifyInternalToken } from '@wallet/kit';
import { tenantAuthenticators } from '../src/features/auth/authenticators';
import {
  closedPortUrl,
  gatewayEnv,
  type GatewayClient,
  INTERNAL_SECRET,
  jsonHeaders,
  prepareGatewayInfrastructure,
  rawRequest,
  read,
  startGateway,
  startUpstreamPeer,
  SYSTEM_KEY,
  systemHeaders,
  type UpstreamPeer,
} from './support';

/**
 * Real parts: the gateway in-process on its two listeners (with its own fresh database and
 * vhost), and a real HTTP upstream that verifies the internal token.
 */
let peer: UpstreamPeer;
let client: GatewayClient;

beforeAll(async () => {
  await prepareGatewayInfrastructure('gateway');
  peer = await startUpstreamPeer();
  client = await startGateway(gatewayEnv({ identity: peer.url }));
});
afterAll(async () => {
  await client.gateway.close();
  await peer.close();
});

function lastReceived() {
  const last = peer.received.at(-1);
  if (!last) throw new Error('the upstream received nothing');
  return last;
}

describe('configuration', () => {
  it('refuses to start without SYSTEM_API_KEY, or with one shorter than 32 characters, naming the variable', async () => {
    const { SYSTEM_API_KEY: _unused, ...withoutKey } = gatewayEnv({ identity: peer.url });
    await expect(startGateway(withoutKey)).rejects.toThrow(/SYSTEM_API_KEY/);
    await expect(startGateway(gatewayEnv({ identity: peer.url }, { SYSTEM_API_KEY: 'k'.repeat(31) }))).rejects.toThrow(
      /SYSTEM_API_KEY: must be at least 32 characters/,
    );
  });

  it('refuses to start without INTERNAL_TOKEN_SECRET', async () => {
    const { INTERNAL_TOKEN_SECRET: _unused, ...withoutSecret } = gatewayEnv({ identity: peer.url });
    await expect(startGateway(withoutSecret)).rejects.toThrow(/INTERNAL_TOKEN_SECRET/);
  });

  it('serves its two listeners on the real ports when given port 0', () => {
    expect(client.gateway.port).toBeGreaterThan(0);
    expect(client.gateway.adminPort).toBeGreaterThan(0);
    expect(client.gateway.adminPort).not.toBe(client.gateway.port);
  });
});

describe('forwarding to the owning service', () => {
  it('delivers JSON number tokens such as 100.10 and 0.30000000000000004 byte for byte', async () => {
    const body =
      '{ "name": "Acme",\n  "config": {"maxTransactionAmount": 100.10, "rate": 0.30000000000000004, "big": 12345678901234567890.000} }\n';
    const response = await read(await fetch(`${client.publicUrl}/v1/tenants`, { method: 'POST', headers: jsonHeaders, body }));
    expect(response.status).toBe(200);
    expect(response.body.bodyText).toBe(body);
    expect(lastReceived().bodyText).toBe(body);
  });

  it('keeps method, path and the raw query string', async () => {
    const response = await read(
      await fetch(`${client.publicUrl}/v1/system/organizations?limit=5&cursor=a%2Fb%3D%3D&cursor=z`, { headers: systemHeaders }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      method: 'GET',
      path: '/v1/system/organizations',
      query: 'limit=5&cursor=a%2Fb%3D%3D&cursor=z',
      bodyText: '',
    });
  });

  it('forwards the allowed headers with a system internal token, and no credentials', async () => {
    const correlationId = `corr-${randomUUID()}`;
    const response = await read(
      await fetch(`${client.publicUrl}/v1/tenants/tn_0123`, {
        headers: {
          ...systemHeaders,
          'X-Correlation-Id': correlationId,
          'Idempotency-Key': 'idem-1',
          'X-Service-Actor-Type': 'team_member',
          'X-Service-Actor-Id': 'usr_1',
          'X-API-Key': 'sk_test_not_for_upstream',
          Authorization: 'Bearer not-for-upstream',
          Cookie: 'a=b',
        },
      }),
    );
    expect(response.status).toBe(200);
    const seen = lastReceived();
    expect(seen.path).toBe('/v1/tenants/tn_0123');
    expect(seen.headers).toMatchObject({
      'x-correlation-id': correlationId,
      'idempotency-key': 'idem-1',
      'x-service-actor-type': 'team_member',
      'x-service-actor-id': 'usr_1',
    });
    for (const secret of ['x-system-key', 'x-api-key', 'authorization', 'cookie']) expect(seen.headers[secret]).toBeUndefined();
    expect(seen.claims).toEqual({
      surface: 'system',
      authMode: 'system',
      tenantId: null,
      environment: null,
      keyId: null,
      scopes: ['*'],
      actor: null,
      exp: expect.any(Number),
    });
  });

  it('hands over an internal token that no longer verifies 61 s later', async () => {
    await fetch(`${client.publicUrl}/v1/tenants/tn_1`, { headers: systemHeaders });
    const { token } = lastReceived();
    expect(verifyInternalToken(INTERNAL_SECRET, token)).not.toBeNull();
    expect(verifyInternalToken(INTERNAL_SECRET, token, Date.now() + 61_000)).toBeNull();
  });

  it('passes back status, content type and body unchanged, without hop-by-hop headers', async () => {
    const created = await read(await fetch(`${client.publicUrl}/v1/tenants/tn_1?status=201&text=1`, { headers: systemHeaders }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(created.text).toBe('plain words from upstream');
    expect(created.headers.get('x-upstream-note')).toBe('passes the gateway');
    expect(created.headers.get('x-hop-only')).toBeNull();
    expect(created.headers.get('x-correlation-id')).toBeTruthy();

    const refused = await read(await fetch(`${client.publicUrl}/v1/tenants/tn_1?status=409`, { headers: systemHeaders }));
    expect(refused.status).toBe(409);
  });
});

describe('X-Correlation-Id', () => {
  it('echoes a well-formed client id, to the client and to the upstream', async () => {
    const response = await fetch(`${client.publicUrl}/v1/tenants/tn_1`, {
      headers: { ...systemHeaders, 'X-Correlation-Id': 'client.id:42-a_b' },
    });
    expect(response.headers.get('x-correlation-id')).toBe('client.id:42-a_b');
    expect(lastReceived().headers['x-correlation-id']).toBe('client.id:42-a_b');
  });

  it('generates one when the client sent none or a malformed one', async () => {
    const none = await fetch(`${client.publicUrl}/healthz`);
    expect(none.headers.get('x-correlation-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    const malformed = await fetch(`${client.publicUrl}/healthz`, { headers: { 'X-Correlation-Id': 'x'.repeat(129) } });
    expect(malformed.headers.get('x-correlation-id')).not.toBe('x'.repeat(129));
    expect(malformed.headers.get('x-correlation-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('makes ids that sort by the time they were made, so request logs index them at the end', async () => {
    const made: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      made.push((await fetch(`${client.publicUrl}/healthz`)).headers.get('x-correlation-id') ?? '');
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    expect(made.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect([...made].sort()).toEqual(made);
  });

  it('is on error responses too, in the header and in the body', async () => {
    const response = await read(await fetch(`${client.publicUrl}/v1/nothing-here`, { headers: { 'X-Correlation-Id': 'err-1' } }));
    expect(response.status).toBe(404);
    expect(response.headers.get('x-correlation-id')).toBe('err-1');
    expect(response.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String), correlationId: 'err-1' } });
  });
});

describe('request bodies', () => {
  /** A valid JSON body of exactly this many bytes. */
  const jsonOfBytes = (bytes: number) => `{"padding":"${'x'.repeat(bytes - '{"padding":""}'.length)}"}`;

  it('accepts a body of exactly 1 MiB', async () => {
    const body = jsonOfBytes(1024 * 1024);
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const before = peer.received.length;
    const response = await fetch(`${client.publicUrl}/v1/tenants`, { method: 'POST', headers: jsonHeaders, body });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    expect(peer.received.length).toBe(before + 1);
    expect(lastReceived().bodyText.length).toBe(1024 * 1024);
  });

  it('refuses 1 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE and forwards nothing', async () => {
    const body = jsonOfBytes(1024 * 1024 + 1);
    expect(Buffer.byteLength(body)).toBe(1024 * 1024 + 1);
    const before = peer.received.length;
    const response = await read(await fetch(`${client.publicUrl}/v1/tenants`, { method: 'POST', headers: jsonHeaders, body }));
    expect(response.status).toBe(413);
    expect(response.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(response.headers.get('x-correlation-id')).toBe(response.body.error?.correlationId);
    expect(peer.received.length).toBe(before);
  });

  it('refuses a body that is not JSON with 400 MALFORMED_JSON', async () => {
    const before = peer.received.length;
    const response = await read(
      await fetch(`${client.publicUrl}/v1/tenants`, { method: 'POST', headers: jsonHeaders, body: '{"name": "Acme",' }),
    );
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('MALFORMED_JSON');
    expect(peer.received.length).toBe(before);
  });

  it('refuses a body of another media type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await read(
      await fetch(`${client.publicUrl}/v1/tenants`, {
        method: 'POST',
        headers: { ...systemHeaders, 'Content-Type': 'text/plain' },
        body: 'name=Acme',
      }),
    );
    expect(response.status).toBe(415);
    expect(response.body.error?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('routing', () => {
  it('answers an unknown path with 404 NOT_FOUND', async () => {
    const response = await read(await fetch(`${client.publicUrl}/v1/unknown`, { headers: systemHeaders }));
    expect(response.status).toBe(404);
    expect(response.body.error?.code).toBe('NOT_FOUND');
  });

  it('answers a known path with another method with the same 404', async () => {
    const response = await read(await fetch(`${client.publicUrl}/v1/tenants`, { method: 'DELETE', headers: systemHeaders }));
    expect(response.status).toBe(404);
    expect(response.body.error?.code).toBe('NOT_FOUND');
  });

  it.each(['/v1/tenants/..', '/v1/tenants/%2e%2e', '/v1/journal/.%2E', '/v1/tenants/a\\..'])(
    'refuses %s, a path the upstream would read differently',
    async (path) => {
      const before = peer.received.length;
      const response = await rawRequest(client.gateway.port, 'GET', path, systemHeaders);
      expect(response.status).toBe(404);
      expect(response.body.error?.code).toBe('NOT_FOUND');
      expect(peer.received.length).toBe(before);
    },
  );
});

describe('system routes (X-System-Key)', () => {
  describe.each([
    ['public', () => client.publicUrl],
    ['admin', () => client.adminUrl],
  ])('on the %s listener', (_listener, baseUrl) => {
    it('refuses a request without the key with 401 MISSING_CREDENTIALS', async () => {
      const response = await read(await fetch(`${baseUrl()}/v1/system/organizations`));
      expect(response.status).toBe(401);
      expect(response.body.error?.code).toBe('MISSING_CREDENTIALS');
    });

    it('refuses a wrong key with 401 INVALID_SYSTEM_KEY', async () => {
      for (const wrong of [`${SYSTEM_KEY}x`, SYSTEM_KEY.slice(0, -1), SYSTEM_KEY.replace(/.$/, '!')]) {
        const response = await read(await fetch(`${baseUrl()}/v1/system/organizations`, { headers: { 'X-System-Key': wrong } }));
        expect(response.status).toBe(401);
        expect(response.body.error?.code).toBe('INVALID_SYSTEM_KEY');
      }
    });

    it('forwards with the right key', async () => {
      const response = await read(
        await fetch(`${baseUrl()}/v1/tenants`, { method: 'POST', headers: jsonHeaders, body: '{"name":"Acme"}' }),
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        method: 'POST',
        path: '/v1/tenants',
        bodyText: '{"name":"Acme"}',
        claims: { surface: 'system' },
      });
    });
  });

  it('the admin listener refuses every path outside /v1/system/* and /v1/tenants*', async () => {
    for (const path of ['/v1/journal', '/v1/ledger/accounts', '/healthz', '/openapi.json', '/docs']) {
      const response = await read(await fetch(`${client.adminUrl}${path}`, { headers: systemHeaders }));
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
    }
  });
});

describe('tenant routes', () => {
  it('refuses a request without credentials with 401 MISSING_CREDENTIALS', async () => {
    const response = await read(await fetch(`${client.publicUrl}/v1/journal`));
    expect(response.status).toBe(401);
    expect(response.body.error?.code).toBe('MISSING_CREDENTIALS');
  });

  it('does not take the system key as a tenant credential', async () => {
    const response = await read(await fetch(`${client.publicUrl}/v1/journal`, { headers: systemHeaders }));
    expect(response.status).toBe(401);
    expect(response.body.error?.code).toBe('MISSING_CREDENTIALS');
  });

  it('answers 503 SERVICE_UNAVAILABLE for an API key when identity answers outside its key contract', async () => {
    // The upstream here is the echo peer, not identity: its 200 is no principal, and a key must not pass on it.
    const response = await read(await fetch(`${client.publicUrl}/v1/journal`, { headers: { 'X-API-Key': `sk_test_${'a'.repeat(32)}` } }));
    expect(response.status).toBe(503);
    expect(response.body.error?.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('answers 503 and forwards nothing when identity cannot vouch for a session token', async () => {
    // The identity upstream here is the echo peer: its answer is outside the session contract.
    const before = peer.received.filter((seen) => seen.path === '/v1/journal').length;
    const response = await read(await fetch(`${client.publicUrl}/v1/journal`, { headers: { Authorization: 'Bearer some-token' } }));
    expect(response.status).toBe(503);
    expect(response.body.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(peer.received.filter((seen) => seen.path === '/v1/journal').length).toBe(before);
  });

  it('refuses a signed request missing a header with 401 MISSING_REQUEST_SIGNATURE_HEADER', async () => {
    const response = await read(
      await fetch(`${client.publicUrl}/v1/journal`, {
        headers: { 'X-Service-Key-Id': 'ak_1', 'X-Service-Timestamp': new Date().toISOString() },
      }),
    );
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ code: 'MISSING_REQUEST_SIGNATURE_HEADER', details: { header: 'x-service-nonce' } });
  });
});

describe('tenant routes with a tenant principal', () => {
  // An in-memory resolver presents keys through the real chain, so these tests need no identity.
  const keys: Record<string, string[]> = {
    sk_test_reader: ['wallets:read'],
    sk_test_ledger: ['ledger:read'],
    sk_test_admin: ['tenant:manage'],
  };
  let tenantClient: GatewayClient;
  beforeAll(async () => {
    tenantClient = await startGateway(gatewayEnv({ identity: peer.url }), {
      tenantAuthenticators: tenantAuthenticators({
        secretKey: async (secret) => {
          const scopes = keys[secret];
          return scopes ? { tenantId: 'tn_acme', environment: 'test', keyId: `ak_${secret.slice(8)}`, scopes } : null;
        },
      }),
    });
  });
  afterAll(async () => {
    await tenantClient.gateway.close();
  });

  it('refuses a key without the route scope with 403 INSUFFICIENT_SCOPE naming it', async () => {
    const response = await read(await fetch(`${tenantClient.publicUrl}/v1/journal`, { headers: { 'X-API-Key': 'sk_test_reader' } }));
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'journal:read' } });
  });

  it('forwards a key with the scope, its tenant, environment, key, scopes and actor in the token', async () => {
    const response = await read(
      await fetch(`${tenantClient.publicUrl}/v1/journal?limit=2`, {
        headers: { 'X-API-Key': 'sk_test_ledger', 'X-Service-Actor-Type': 'team_member', 'X-Service-Actor-Id': 'usr_9' },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.body.claims).toMatchObject({
      surface: 'tenant',
      tenantId: 'tn_acme',
      environment: 'test',
      keyId: 'ak_ledger',
      scopes: ['ledger:read'],
      actor: { type: 'team_member', id: 'usr_9' },
    });
  });

  it('lets the tenant:manage umbrella through a route of another scope', async () => {
    const response = await read(
      await fetch(`${tenantClient.publicUrl}/v1/ledger/reconciliation`, { headers: { 'X-API-Key': 'sk_test_admin' } }),
    );
    expect(response.status).toBe(200);
    expect(response.body.claims?.scopes).toEqual(['tenant:manage']);
  });

  it('does not open system routes to a tenant key', async () => {
    const response = await read(
      await fetch(`${tenantClient.publicUrl}/v1/system/organizations`, { headers: { 'X-API-Key': 'sk_test_admin' } }),
    );
    expect(response.status).toBe(401);
    expect(response.body.error?.code).toBe('MISSING_CREDENTIALS');
  });
});

describe('an upstream that is down', () => {
  it('answers 503 SERVICE_UNAVAILABLE when the service is unreachable', async () => {
    const down = await startGateway(gatewayEnv({ identity: await closedPortUrl() }));
    try {
      const response = await read(
        await fetch(`${down.publicUrl}/v1/tenants/tn_1`, { headers: { ...systemHeaders, 'X-Correlation-Id': 'down-1' } }),
      );
      expect(response.status).toBe(503);
      expect(response.headers.get('x-correlation-id')).toBe('down-1');
      expect(response.body).toEqual({
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), details: { service: 'identity' }, correlationId: 'down-1' },
      });
    } finally {
      await down.gateway.close();
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when the service does not answer in time', async () => {
    const slow = await startGateway(gatewayEnv({ identity: peer.url }, { GATEWAY_UPSTREAM_TIMEOUT_MS: '300' }));
    try {
      const startedMs = Date.now();
      const response = await read(await fetch(`${slow.publicUrl}/v1/tenants/tn_1?hang=1`, { headers: systemHeaders }));
      expect(response.status).toBe(503);
      expect(response.body.error?.code).toBe('SERVICE_UNAVAILABLE');
      expect(Date.now() - startedMs).toBeLessThan(5_000);
    } finally {
      await slow.gateway.close();
    }
  });
});

describe('X-Content-Type-Options: nosniff on every answer of every listener', () => {
  const publicUrl = () => client.publicUrl;
  const adminUrl = () => client.adminUrl;
  const dashboardUrl = () => `http://127.0.0.1:${client.gateway.dashboardPort}`;
  const post = (url: string, headers: Record<string, string> = jsonHeaders, body = '{"name":"Acme"}') =>
    fetch(url, { method: 'POST', headers, body });
  const withSystemKey = (url: string) => fetch(url, { headers: systemHeaders });

  it.each([
    ['public', 'a forwarded JSON answer', 200, () => post(`${publicUrl()}/v1/tenants`)],
    ['public', 'a forwarded text answer', 200, () => withSystemKey(`${publicUrl()}/v1/tenants/tn_1?text`)],
    ['public', "an upstream's error", 404, () => withSystemKey(`${publicUrl()}/v1/tenants/tn_1?status=404&error=NOT_FOUND`)],
    ['public', 'an unknown path', 404, () => fetch(`${publicUrl()}/v1/unknown`)],
    ['public', 'a refused credential', 401, () => fetch(`${publicUrl()}/v1/journal`)],
    ['public', 'a body that is not JSON', 400, () => post(`${publicUrl()}/v1/tenants`, jsonHeaders, '{')],
    ['public', '/healthz', 200, () => fetch(`${publicUrl()}/healthz`)],
    ['public', '/openapi.json', 200, () => fetch(`${publicUrl()}/openapi.json`)],
    ['public', '/docs', 200, () => fetch(`${publicUrl()}/docs`)],
    ['admin', '/metrics', 200, () => fetch(`${adminUrl()}/metrics`)],
    ['admin', 'a forwarded answer', 200, () => post(`${adminUrl()}/v1/tenants`)],
    ['admin', 'a path it does not serve', 404, () => fetch(`${adminUrl()}/v1/journal`)],
    ['admin', 'a refused credential', 401, () => fetch(`${adminUrl()}/v1/system/organizations`)],
    ['dashboard', 'an unknown API path', 404, () => fetch(`${dashboardUrl()}/v1/unknown`)],
    ['dashboard', 'a request without a session', 401, () => fetch(`${dashboardUrl()}/v1/journal`)],
    ['dashboard', 'a write without the CSRF header', 403, () => post(`${dashboardUrl()}/v1/wallets`, { 'content-type': 'text/plain' })],
  ])('on the %s listener: %s', async (_listener, _what, status, send) => {
    const response = await send();
    await response.arrayBuffer();
    expect({ status: response.status, nosniff: response.headers.get('x-content-type-options') }).toEqual({ status, nosniff: 'nosniff' });
  });
});

describe('GET /healthz, /readyz (public listener), /metrics (admin listener)', () => {
  it('/healthz answers while the process runs', async () => {
    const response = await read(await fetch(`${client.publicUrl}/healthz`));
    expect(response).toMatchObject({ status: 200, body: { status: 'ok', service: 'gateway' } });
  });

  it('/readyz is ok when the database, the broker and every upstream answer', async () => {
    const response = await read(await fetch(`${client.publicUrl}/readyz`));
    expect(response.status).toBe(200);
    expect((response.body.checks ?? []).map((check) => `${check.name}:${check.status}`)).toEqual([
      'database:ok',
      'broker:ok',
      'identity:ok',
      'ledger:ok',
      'payments:ok',
      'treasury:ok',
    ]);
  });

  it('/readyz answers 503 naming the upstream that is down', async () => {
    const partial = await startGateway(gatewayEnv({ identity: peer.url, treasury: await closedPortUrl() }));
    try {
      const response = await read(await fetch(`${partial.publicUrl}/readyz`));
      expect(response.status).toBe(503);
      expect(response.body.status).toBe('down');
      expect(response.body.checks).toContainEqual(expect.objectContaining({ name: 'treasury', status: 'down' }));
      expect(response.body.checks).toContainEqual({ name: 'identity', status: 'ok' });
    } finally {
      await partial.gateway.close();
    }
  });

  it('/metrics is served on the admin listener only, with request durations by route template', async () => {
    await fetch(`${client.publicUrl}/v1/tenants/tn_metrics`, { headers: systemHeaders });
    const response = await read(await fetch(`${client.adminUrl}/metrics`));
    expect(response.status).toBe(200);
    expect(response.text).toContain('http_request_duration_seconds');
    expect(response.text).toContain('route="/v1/tenants/{id}"');
    expect(response.text).not.toContain('tn_metrics');
    for (const method of ['GET', 'HEAD']) {
      const publicAnswer = await fetch(`${client.publicUrl}/metrics`, { method });
      expect({ method, status: publicAnswer.status, body: await publicAnswer.text() }).toEqual({
        method,
        status: 404,
        body: method === 'GET' ? expect.stringContaining('NOT_FOUND') : '',
      });
    }
  });
});

describe('GET /openapi.json and /docs', () => {
  it('/openapi.json lists /v1/journal and /v1/tenants', async () => {
    const response = await read(await fetch(`${client.publicUrl}/openapi.json`));
    expect(response.status).toBe(200);
    expect(response.body.openapi).toMatch(/^3\./);
    expect(Object.keys(response.body.paths ?? {})).toEqual(expect.arrayContaining(['/v1/journal', '/v1/tenants']));
  });

  it('/docs answers the Swagger UI page, its assets served locally', async () => {
    const page = await read(await fetch(`${client.publicUrl}/docs`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js']));
    expect(assets.filter((asset) => /^(https?:)?\/\//.test(asset))).toEqual([]);
    for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/swagger-ui-init.js']) {
      const response = await fetch(`${client.publicUrl}${asset}`);
      await response.arrayBuffer();
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
    }
  });
});
