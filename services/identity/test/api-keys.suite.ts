import { createHash } from 'node:crypto';
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import {
  apiKeyChangedV1Schema,
  apiKeySchema,
  apiKeyWithSecretSchema,
  type Environment,
  errorBodySchema,
  pageSchema,
  TOPOLOGY,
} from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type HttpResult, type IdentityHarness, internalToken, startIdentityHarness, tenantBody } from './support';

/** Real: PostgreSQL, RabbitMQ and the identity service over HTTP, called as the gateway calls it. */
let identity: IdentityHarness;
let connection: ChannelModel;
let channel: Channel;
const changes: ConsumeMessage[] = [];

beforeAll(async () => {
  identity = await startIdentityHarness();
  // Our own queue for key changes, bound as the gateway binds its own.
  connection = await amqp.connect(identity.amqpUrl);
  channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, TOPOLOGY.identityEvents.exchange, TOPOLOGY.identityEvents.apiKeyChangedRoutingKey);
  await channel.consume(
    queue,
    (message) => {
      if (message) changes.push(message);
    },
    { noAck: true },
  );
});

afterAll(async () => {
  await connection?.close();
  await identity?.close();
});

type CallerMode = 'secret' | 'hmac' | 'session';

interface TenantCaller {
  tenantId: string;
  environment?: Environment;
  scopes?: string[];
  authMode?: CallerMode;
  keyId?: string | null;
}

/** What the gateway would sign for a tenant's key (default) or dashboard session. */
function tenantToken(caller: TenantCaller): string {
  const authMode = caller.authMode ?? 'secret';
  return internalToken({
    surface: 'tenant',
    authMode,
    tenantId: caller.tenantId,
    environment: caller.environment ?? 'test',
    keyId: authMode === 'session' ? null : (caller.keyId ?? 'ak_caller'),
    scopes: caller.scopes ?? ['tenant:manage'],
    actor: authMode === 'session' ? { type: 'team_member', id: 'usr_session_member' } : null,
  });
}

function expectErrorBody(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  const parsed = errorBodySchema.parse(result.body);
  expect(parsed.error.correlationId).toBe(result.headers.get('x-correlation-id'));
  return parsed.error;
}

async function newTenant(): Promise<string> {
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

function keyBody(overrides: Record<string, unknown> = {}) {
  return { name: 'Server key', authMode: 'secret', scopes: ['wallets:read'], environment: 'test', ...overrides };
}

async function createKey(caller: TenantCaller, overrides: Record<string, unknown> = {}) {
  const created = await identity.request('POST', '/v1/developer/api-keys', { body: keyBody(overrides), token: tenantToken(caller) });
  expect(created.status).toBe(201);
  return apiKeyWithSecretSchema.parse(created.body);
}

async function auditOf(tenantId: string, targetId: string) {
  const listed = await identity.request('GET', `/v1/team/audit-events?targetId=${targetId}&limit=200`, {
    token: tenantToken({ tenantId, scopes: ['audit:read'] }),
  });
  expect(listed.status).toBe(200);
  return (
    listed.body.data as Array<{ action: string; actorType: string; actorId: string; targetType: string; metadata: Record<string, unknown> }>
  ).reverse();
}

async function changeMessage(keyId: string, change: string) {
  const message = await waitFor(
    async () =>
      changes.find((candidate) => {
        const payload = JSON.parse(candidate.content.toString());
        return payload.keyId === keyId && payload.change === change;
      }),
    { what: `api_key.changed.v1 ${change} of ${keyId}` },
  );
  return { message, event: apiKeyChangedV1Schema.parse(JSON.parse(message.content.toString())) };
}

/** Rows of the service's tables whose text holds `needle` anywhere. */
async function rowsContaining(needle: string): Promise<number> {
  let total = 0;
  for (const table of ['api_keys', 'api_key_credentials', 'audit_events', 'outbox']) {
    const found = await identity.db.raw(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE ?`, [`%${needle}%`]);
    total += found.rows[0].n;
  }
  return total;
}

describe('creating keys', () => {
  it('creates a secret key on the tenant surface: the key once, only its SHA-256 stored', async () => {
    const tenantId = await newTenant();
    const created = await identity.request('POST', '/v1/developer/api-keys', {
      body: keyBody({
        name: 'Payouts server',
        scopes: ['wallets:read', 'payouts:create'],
        restrictions: { requireActorHeaders: true, allowedIps: ['10.0.0.0/8', '192.168.1.7'] },
      }),
      token: tenantToken({ tenantId }),
    });
    expect(created.status).toBe(201);
    const key = apiKeyWithSecretSchema.parse(created.body);
    expect(key).toEqual({
      id: expect.stringMatching(/^ak_[0-9A-Z]{26}$/),
      tenantId,
      name: 'Payouts server',
      authMode: 'secret',
      environment: 'test',
      scopes: ['wallets:read', 'payouts:create'],
      restrictions: { requireRequestSigning: false, requireActorHeaders: true, allowedIps: ['10.0.0.0/8', '192.168.1.7'] },
      keyPrefix: 'sk_test_',
      last4: (key.key as string).slice(-4),
      status: 'active',
      expiresAt: null,
      revokedAt: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{40}$/),
    });
    const credential = await identity.db('api_key_credentials').where({ key_id: key.id }).first();
    expect(credential.secret_hash).toBe(
      createHash('sha256')
        .update(key.key as string)
        .digest('hex'),
    );
    expect(credential.signing_secret_ciphertext).toBeNull();
    expect(credential.valid_until).toBeNull();
    expect(await rowsContaining(key.key as string)).toBe(0);
  });

  it('creates an hmac key whose signing secret is shown once and stored only sealed', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId }, { authMode: 'hmac', restrictions: { requireRequestSigning: false } });
    expect(key).toMatchObject({
      authMode: 'hmac',
      keyPrefix: null,
      last4: null,
      status: 'active',
      restrictions: { requireRequestSigning: true, requireActorHeaders: false, allowedIps: null },
    });
    expect(key.key).toBeUndefined();
    expect(key.signingSecret).toMatch(/^sig_test_[A-Za-z0-9_-]{43}$/);
    const credential = await identity.db('api_key_credentials').where({ key_id: key.id }).first();
    expect(credential.secret_hash).toBeNull();
    expect(credential.master_key_id).toBe('test-master-1');
    expect(Buffer.isBuffer(credential.signing_secret_ciphertext)).toBe(true);
    expect(credential.signing_secret_ciphertext.includes(Buffer.from(key.signingSecret as string))).toBe(false);
    expect(await rowsContaining(key.signingSecret as string)).toBe(0);
  });

  it('creates a live key with an expiry through the system surface', async () => {
    const tenantId = await newTenant();
    const before = Date.now();
    const created = await identity.request('POST', `/v1/tenants/${tenantId}/api-keys`, {
      body: { name: 'Ops', scopes: ['tenant:manage'], environment: 'live', expiresInSeconds: 3600 },
    });
    expect(created.status).toBe(201);
    const key = apiKeyWithSecretSchema.parse(created.body);
    expect(key).toMatchObject({ tenantId, authMode: 'secret', environment: 'live', keyPrefix: 'sk_live_', scopes: ['tenant:manage'] });
    expect(key.key).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    const expiresAt = Date.parse(key.expiresAt as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
  });

  it('answers 404 TENANT_NOT_FOUND on the system surface for an unknown tenant', async () => {
    expectErrorBody(
      await identity.request('POST', '/v1/tenants/tn_00000000000000000000000000/api-keys', { body: keyBody() }),
      404,
      'TENANT_NOT_FOUND',
    );
    expectErrorBody(await identity.request('GET', '/v1/tenants/tn_00000000000000000000000000/api-keys'), 404, 'TENANT_NOT_FOUND');
  });

  it('keeps the system surface for the platform operator', async () => {
    const tenantId = await newTenant();
    expectErrorBody(
      await identity.request('POST', `/v1/tenants/${tenantId}/api-keys`, { body: keyBody(), token: tenantToken({ tenantId }) }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expectErrorBody(
      await identity.request('GET', `/v1/tenants/${tenantId}/api-keys`, { token: tenantToken({ tenantId }) }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });

  it('refuses requireRequestSigning on a secret key with REQUEST_SIGNING_REQUIRES_HMAC, on both surfaces', async () => {
    const tenantId = await newTenant();
    const body = keyBody({ restrictions: { requireRequestSigning: true } });
    expectErrorBody(
      await identity.request('POST', '/v1/developer/api-keys', { body, token: tenantToken({ tenantId }) }),
      400,
      'REQUEST_SIGNING_REQUIRES_HMAC',
    );
    expectErrorBody(await identity.request('POST', `/v1/tenants/${tenantId}/api-keys`, { body }), 400, 'REQUEST_SIGNING_REQUIRES_HMAC');
    expect(await identity.db('api_keys').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count')).toEqual([{ count: '0' }]);
  });

  it.each([
    ['an unknown scope', { scopes: ['wallets:steal'] }],
    ['no scopes', { scopes: [] }],
    ['an unknown environment', { environment: 'staging' }],
    ['an unknown auth mode', { authMode: 'oauth' }],
    ['a malformed CIDR', { restrictions: { allowedIps: ['10.0.0.0/99'] } }],
    ['an expiry under a minute', { expiresInSeconds: 5 }],
  ])('refuses %s with VALIDATION_ERROR', async (_label, overrides) => {
    const tenantId = await newTenant();
    expectErrorBody(
      await identity.request('POST', '/v1/developer/api-keys', { body: keyBody(overrides), token: tenantToken({ tenantId }) }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('scope escalation', () => {
  it('refuses to create a key with scopes the caller does not hold, naming them', async () => {
    const tenantId = await newTenant();
    const caller = { tenantId, scopes: ['api_keys:manage', 'wallets:read'] };
    const error = expectErrorBody(
      await identity.request('POST', '/v1/developer/api-keys', {
        body: keyBody({ scopes: ['wallets:read', 'payouts:approve', 'tenant:manage'] }),
        token: tenantToken(caller),
      }),
      403,
      'SCOPE_ESCALATION',
    );
    expect(error.details).toEqual({ scopes: ['payouts:approve', 'tenant:manage'] });
    // Umbrellas and aliases count as held.
    await createKey(
      { tenantId, scopes: ['api_keys:manage', 'ledger:read', 'wallet:transfer'] },
      { scopes: ['wallets:read', 'audit:read', 'transfers:create'] },
    );
  });

  it('refuses a PATCH that adds scopes the caller does not hold', async () => {
    const tenantId = await newTenant();
    const caller = { tenantId, scopes: ['api_keys:manage', 'wallets:read', 'payouts:read'] };
    const key = await createKey(caller, { scopes: ['wallets:read'] });
    const error = expectErrorBody(
      await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, {
        body: { scopes: ['wallets:read', 'payouts:create'] },
        token: tenantToken(caller),
      }),
      403,
      'SCOPE_ESCALATION',
    );
    expect(error.details).toEqual({ scopes: ['payouts:create'] });
    const allowed = await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, {
      body: { scopes: ['wallets:read', 'payouts:read'] },
      token: tenantToken(caller),
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.scopes).toEqual(['wallets:read', 'payouts:read']);
  });

  it('refuses to rotate, revoke or edit a key stronger than the caller, so a weak key cannot take a strong one over', async () => {
    const tenantId = await newTenant();
    const strong = await createKey({ tenantId }, { scopes: ['tenant:manage'] });
    const weak = { tenantId, scopes: ['api_keys:manage', 'wallets:read'] };
    for (const [method, path, body] of [
      ['POST', `/v1/developer/api-keys/${strong.id}/rotate`, { expiresInSeconds: 0 }],
      ['POST', `/v1/developer/api-keys/${strong.id}/revoke`, undefined],
      ['PATCH', `/v1/developer/api-keys/${strong.id}`, { name: 'Mine now' }],
    ] as const) {
      const error = expectErrorBody(await identity.request(method, path, { body, token: tenantToken(weak) }), 403, 'SCOPE_ESCALATION');
      expect(error.details).toEqual({ scopes: ['tenant:manage'] });
    }
    const unchanged = await identity.request('GET', `/v1/developer/api-keys/${strong.id}`, { token: tenantToken({ tenantId }) });
    expect(unchanged.body).toMatchObject({ name: strong.name, status: 'active', last4: strong.last4 });
  });

  it('lets a key create keys only in its own environment, and a session in either', async () => {
    const tenantId = await newTenant();
    const error = expectErrorBody(
      await identity.request('POST', '/v1/developer/api-keys', {
        body: keyBody({ environment: 'live' }),
        token: tenantToken({ tenantId, environment: 'test', authMode: 'secret' }),
      }),
      403,
      'SCOPE_ESCALATION',
    );
    expect(error.details).toMatchObject({ environment: 'live' });
    expectErrorBody(
      await identity.request('POST', '/v1/developer/api-keys', {
        body: keyBody({ environment: 'test' }),
        token: tenantToken({ tenantId, environment: 'live', authMode: 'hmac' }),
      }),
      403,
      'SCOPE_ESCALATION',
    );
    const fromSession = await createKey({ tenantId, environment: 'test', authMode: 'session' }, { environment: 'live' });
    expect(fromSession).toMatchObject({ environment: 'live', keyPrefix: 'sk_live_' });
    // A session still hands on only what its role holds.
    expectErrorBody(
      await identity.request('POST', '/v1/developer/api-keys', {
        body: keyBody({ scopes: ['tenant:manage'] }),
        token: tenantToken({ tenantId, authMode: 'session', scopes: ['api_keys:manage', 'wallets:read'] }),
      }),
      403,
      'SCOPE_ESCALATION',
    );
  });
});

describe('reading keys', () => {
  it('lists newest first in pages, never with a secret', async () => {
    const tenantId = await newTenant();
    const created = [];
    for (let index = 0; index < 3; index += 1)
      created.push(await createKey({ tenantId }, { name: `Key ${index}`, authMode: index === 1 ? 'hmac' : 'secret' }));
    const listSchema = pageSchema(apiKeySchema.strict());
    const first = await identity.request('GET', '/v1/developer/api-keys?limit=2', { token: tenantToken({ tenantId }) });
    expect(first.status).toBe(200);
    const firstPage = listSchema.parse(first.body);
    expect(firstPage.data.map((key) => key.id)).toEqual([created[2]?.id, created[1]?.id]);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    const second = listSchema.parse(
      (
        await identity.request('GET', `/v1/developer/api-keys?limit=2&cursor=${encodeURIComponent(firstPage.nextCursor as string)}`, {
          token: tenantToken({ tenantId }),
        })
      ).body,
    );
    expect(second).toEqual({ data: [expect.objectContaining({ id: created[0]?.id })], nextCursor: null });
    const text = JSON.stringify([first.body, second]);
    for (const key of created) expect(text).not.toContain(key.key ?? key.signingSecret);
    expect(text).not.toMatch(/"key"|"signingSecret"/);
  });

  it('shows a key caller only its own environment; a session both, or the one it filters on', async () => {
    const tenantId = await newTenant();
    const testKey = await createKey({ tenantId, authMode: 'session' }, { environment: 'test' });
    const liveKey = await createKey({ tenantId, authMode: 'session' }, { environment: 'live' });
    const ids = async (token: string, query = '') =>
      ((await identity.request('GET', `/v1/developer/api-keys${query}`, { token })).body.data as Array<{ id: string }>).map(
        (key) => key.id,
      );
    expect(await ids(tenantToken({ tenantId, environment: 'test' }))).toEqual([testKey.id]);
    expect(await ids(tenantToken({ tenantId, environment: 'live', authMode: 'hmac' }))).toEqual([liveKey.id]);
    expect(await ids(tenantToken({ tenantId, environment: 'test' }), '?environment=live')).toEqual([]);
    expect(await ids(tenantToken({ tenantId, authMode: 'session' }))).toEqual([liveKey.id, testKey.id]);
    expect(await ids(tenantToken({ tenantId, authMode: 'session' }), '?environment=live')).toEqual([liveKey.id]);
    expect(
      ((await identity.request('GET', `/v1/tenants/${tenantId}/api-keys?environment=test`)).body.data as Array<{ id: string }>).map(
        (key) => key.id,
      ),
    ).toEqual([testKey.id]);

    expectErrorBody(
      await identity.request('GET', `/v1/developer/api-keys/${liveKey.id}`, { token: tenantToken({ tenantId, environment: 'test' }) }),
      404,
      'API_KEY_NOT_FOUND',
    );
    const fromSession = await identity.request('GET', `/v1/developer/api-keys/${liveKey.id}`, {
      token: tenantToken({ tenantId, environment: 'test', authMode: 'session' }),
    });
    expect(fromSession.status).toBe(200);
    expect(apiKeySchema.strict().parse(fromSession.body).id).toBe(liveKey.id);
    // Nor can a test key act on a live key it cannot see.
    expectErrorBody(
      await identity.request('POST', `/v1/developer/api-keys/${liveKey.id}/revoke`, {
        token: tenantToken({ tenantId, environment: 'test' }),
      }),
      404,
      'API_KEY_NOT_FOUND',
    );
  });

  it("answers 404 API_KEY_NOT_FOUND for another tenant's key, whatever the route", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const key = await createKey({ tenantId: owner });
    const token = tenantToken({ tenantId: other, authMode: 'session' });
    expectErrorBody(await identity.request('GET', `/v1/developer/api-keys/${key.id}`, { token }), 404, 'API_KEY_NOT_FOUND');
    expectErrorBody(
      await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, { body: { name: 'x' }, token }),
      404,
      'API_KEY_NOT_FOUND',
    );
    expectErrorBody(
      await identity.request('POST', `/v1/developer/api-keys/${key.id}/rotate`, { body: {}, token }),
      404,
      'API_KEY_NOT_FOUND',
    );
    expectErrorBody(await identity.request('POST', `/v1/developer/api-keys/${key.id}/revoke`, { token }), 404, 'API_KEY_NOT_FOUND');
    expectErrorBody(await identity.request('POST', `/v1/tenants/${other}/api-keys/${key.id}/revoke`), 404, 'API_KEY_NOT_FOUND');
    expect(
      (await identity.request('GET', `/v1/developer/api-keys/${key.id}`, { token: tenantToken({ tenantId: owner }) })).body.status,
    ).toBe('active');
  });

  it.each(['0', '201'])('refuses limit=%s', async (limit) => {
    const tenantId = await newTenant();
    expectErrorBody(
      await identity.request('GET', `/v1/developer/api-keys?limit=${limit}`, { token: tenantToken({ tenantId }) }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses a malformed cursor with INVALID_CURSOR', async () => {
    const tenantId = await newTenant();
    expectErrorBody(
      await identity.request('GET', '/v1/developer/api-keys?cursor=nope!', { token: tenantToken({ tenantId }) }),
      400,
      'INVALID_CURSOR',
    );
  });
});

describe('changing keys', () => {
  it('edits name, scopes and restrictions; restrictions left out keep their value; audited and announced', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId }, { restrictions: { allowedIps: ['10.1.0.0/16'] } });
    const patched = await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, {
      body: { name: 'Renamed', scopes: ['wallets:read', 'wallets:create'], restrictions: { requireActorHeaders: true } },
      token: tenantToken({ tenantId }),
      correlationId: 'corr-key-patch-1',
    });
    expect(patched.status).toBe(200);
    expect(apiKeySchema.strict().parse(patched.body)).toMatchObject({
      id: key.id,
      name: 'Renamed',
      scopes: ['wallets:read', 'wallets:create'],
      restrictions: { requireRequestSigning: false, requireActorHeaders: true, allowedIps: ['10.1.0.0/16'] },
      last4: key.last4,
    });
    const cleared = await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, {
      body: { restrictions: { allowedIps: null } },
      token: tenantToken({ tenantId }),
    });
    expect(cleared.body.restrictions).toEqual({ requireRequestSigning: false, requireActorHeaders: true, allowedIps: null });

    const { message, event } = await changeMessage(key.id, 'updated');
    expect(event).toEqual({
      type: 'api_key.changed.v1',
      messageId: expect.stringMatching(/^msg_/),
      keyId: key.id,
      tenantId,
      change: 'updated',
      occurredAt: expect.any(String),
    });
    expect(message.fields.routingKey).toBe(TOPOLOGY.identityEvents.apiKeyChangedRoutingKey);
    expect(message.properties.headers?.['x-correlation-id']).toBe('corr-key-patch-1');

    const updated = (await auditOf(tenantId, key.id)).filter((record) => record.action === 'api_key.updated');
    expect(updated[0]?.metadata).toEqual({
      before: {
        name: 'Server key',
        scopes: ['wallets:read'],
        restrictions: { requireRequestSigning: false, requireActorHeaders: false, allowedIps: ['10.1.0.0/16'] },
      },
      after: {
        name: 'Renamed',
        scopes: ['wallets:read', 'wallets:create'],
        restrictions: { requireRequestSigning: false, requireActorHeaders: true, allowedIps: ['10.1.0.0/16'] },
      },
    });
  });

  it('refuses requireRequestSigning on a secret key in a PATCH, and keeps it on for an hmac key', async () => {
    const tenantId = await newTenant();
    const secretKey = await createKey({ tenantId });
    expectErrorBody(
      await identity.request('PATCH', `/v1/developer/api-keys/${secretKey.id}`, {
        body: { restrictions: { requireRequestSigning: true } },
        token: tenantToken({ tenantId }),
      }),
      400,
      'REQUEST_SIGNING_REQUIRES_HMAC',
    );
    const hmacKey = await createKey({ tenantId }, { authMode: 'hmac' });
    const patched = await identity.request('PATCH', `/v1/developer/api-keys/${hmacKey.id}`, {
      body: { restrictions: { requireRequestSigning: false } },
      token: tenantToken({ tenantId }),
    });
    expect(patched.status).toBe(200);
    expect(patched.body.restrictions.requireRequestSigning).toBe(true);
  });

  it('answers a PATCH that changes nothing with the key, and neither audits nor announces it', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId }, { restrictions: { allowedIps: ['10.0.0.1'] } });
    const same = await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, {
      body: { name: key.name, scopes: key.scopes, restrictions: { requireActorHeaders: false, allowedIps: ['10.0.0.1'] } },
      token: tenantToken({ tenantId }),
    });
    expect(same.status).toBe(200);
    const { key: _secret, signingSecret: _none, ...listed } = key;
    expect(same.body).toEqual(listed);
    expect((await auditOf(tenantId, key.id)).map((record) => record.action)).toEqual(['api_key.created']);
    expect(
      await identity
        .db('outbox')
        .whereRaw('payload LIKE ?', [`%${key.id}%`])
        .count<{ count: string }[]>('* as count'),
    ).toEqual([{ count: '0' }]);
    expect(changes.some((message) => JSON.parse(message.content.toString()).keyId === key.id)).toBe(false);
  });

  it('refuses an empty PATCH', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId });
    expectErrorBody(
      await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, { body: {}, token: tenantToken({ tenantId }) }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('rotates a secret key: a new key once, a new last4, audited and announced', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId });
    const rotated = await identity.request('POST', `/v1/developer/api-keys/${key.id}/rotate`, {
      body: { expiresInSeconds: 3600 },
      token: tenantToken({ tenantId }),
    });
    expect(rotated.status).toBe(200);
    const body = apiKeyWithSecretSchema.parse(rotated.body);
    expect(body.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(body.key).not.toBe(key.key);
    expect(body).toMatchObject({ id: key.id, last4: (body.key as string).slice(-4), status: 'active' });
    expect(body.signingSecret).toBeUndefined();
    const credentials = await identity.db('api_key_credentials').where({ key_id: key.id }).orderBy('id');
    expect(credentials.map((row) => row.secret_hash)).toEqual(
      [key.key, body.key].map((secret) =>
        createHash('sha256')
          .update(secret as string)
          .digest('hex'),
      ),
    );
    expect(credentials[0].valid_until.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect(credentials[1].valid_until).toBeNull();

    const { event } = await changeMessage(key.id, 'rotated');
    expect(event.tenantId).toBe(tenantId);
    const rotatedRecord = (await auditOf(tenantId, key.id)).find((record) => record.action === 'api_key.rotated');
    expect(rotatedRecord?.metadata).toMatchObject({ expiresInSeconds: 3600, previousValidUntil: credentials[0].valid_until.toISOString() });
  });

  it('rotates an hmac key through the system surface: a new signing secret once', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId }, { authMode: 'hmac' });
    const rotated = await identity.request('POST', `/v1/tenants/${tenantId}/api-keys/${key.id}/rotate`);
    expect(rotated.status).toBe(200);
    const body = apiKeyWithSecretSchema.parse(rotated.body);
    expect(body.signingSecret).toMatch(/^sig_test_/);
    expect(body.signingSecret).not.toBe(key.signingSecret);
    expect(body.key).toBeUndefined();
    await changeMessage(key.id, 'rotated');
    const record = (await auditOf(tenantId, key.id)).find((candidate) => candidate.action === 'api_key.rotated');
    expect(record).toMatchObject({ actorType: 'system', actorId: 'system', metadata: { expiresInSeconds: 0 } });
    expect(await rowsContaining(body.signingSecret as string)).toBe(0);
  });

  it.each([[-1], [604_801], ['soon']])('refuses a rotation overlap of %p', async (expiresInSeconds) => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId });
    expectErrorBody(
      await identity.request('POST', `/v1/developer/api-keys/${key.id}/rotate`, {
        body: { expiresInSeconds },
        token: tenantToken({ tenantId }),
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('revokes a key once: audited and announced; a second revoke changes nothing; a revoked key cannot be rotated', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId }, { authMode: 'hmac' });
    const revoked = await identity.request('POST', `/v1/developer/api-keys/${key.id}/revoke`, {
      token: tenantToken({ tenantId, keyId: 'ak_revoker' }),
    });
    expect(revoked.status).toBe(200);
    const body = apiKeySchema.strict().parse(revoked.body);
    expect(body).toMatchObject({ id: key.id, status: 'revoked', revokedAt: expect.any(String) });
    await changeMessage(key.id, 'revoked');
    // Its signing secrets can never verify again, so they are not kept.
    expect(await identity.db('api_key_credentials').where({ key_id: key.id }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '0' },
    ]);

    const again = await identity.request('POST', `/v1/developer/api-keys/${key.id}/revoke`, { token: tenantToken({ tenantId }) });
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(body.revokedAt);
    expectErrorBody(
      await identity.request('POST', `/v1/developer/api-keys/${key.id}/rotate`, { token: tenantToken({ tenantId }) }),
      400,
      'VALIDATION_ERROR',
    );
    expectErrorBody(
      await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, { body: { name: 'x' }, token: tenantToken({ tenantId }) }),
      400,
      'VALIDATION_ERROR',
    );

    const records = (await auditOf(tenantId, key.id)).filter((record) => record.action === 'api_key.revoked');
    expect(records).toEqual([expect.objectContaining({ actorType: 'api_key', actorId: 'ak_revoker', targetType: 'api_key' })]);
  });

  it('revokes through the system surface', async () => {
    const tenantId = await newTenant();
    const key = await createKey({ tenantId });
    const revoked = await identity.request('POST', `/v1/tenants/${tenantId}/api-keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    await changeMessage(key.id, 'revoked');
  });
});

describe('the audit trail of a key', () => {
  it('records create, update, rotate and revoke with their actor, tenant-wide, and never a secret', async () => {
    const tenantId = await newTenant();
    const session = { tenantId, authMode: 'session' as const, environment: 'live' as const };
    const key = await createKey(session, { environment: 'test' });
    await identity.request('PATCH', `/v1/developer/api-keys/${key.id}`, { body: { name: 'Audited' }, token: tenantToken(session) });
    const rotated = await identity.request('POST', `/v1/developer/api-keys/${key.id}/rotate`, {
      body: { expiresInSeconds: 60 },
      token: tenantToken(session),
    });
    await identity.request('POST', `/v1/developer/api-keys/${key.id}/revoke`, { token: tenantToken(session) });

    const records = await auditOf(tenantId, key.id);
    expect(records.map((record) => record.action)).toEqual(['api_key.created', 'api_key.updated', 'api_key.rotated', 'api_key.revoked']);
    for (const record of records)
      expect(record).toMatchObject({ actorType: 'team_member', actorId: 'usr_session_member', targetType: 'api_key' });
    expect(records[0]?.metadata).toMatchObject({ name: 'Server key', authMode: 'secret', environment: 'test', scopes: ['wallets:read'] });
    const text = JSON.stringify(records);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(rotated.body.key);
    // Tenant-wide: the test key's records show from the live environment too.
    const stored = await identity.db('audit_events').where({ target_id: key.id }).pluck('environment');
    expect(stored).toEqual([null, null, null, null]);
  });
});
