import {
  type Environment,
  errorBodySchema,
  momoProviderSchema,
  momoProviderSecretsSchema,
  momoProviderWithSecretSchema,
  pageSchema,
} from '@wallet/contracts';
import { type HttpResult, type IdentityHarness, internalToken, startIdentityHarness, tenantBody } from './support';

/** Real: PostgreSQL, RabbitMQ and the identity service over HTTP. Nothing is faked. */
let identity: IdentityHarness;

beforeAll(async () => {
  identity = await startIdentityHarness();
});

afterAll(async () => {
  await identity?.close();
});

function tenantToken(tenantId: string, environment: Environment = 'test', scopes: string[] = ['providers:manage', 'audit:read']): string {
  return internalToken({ surface: 'tenant', authMode: 'secret', tenantId, environment, keyId: 'ak_provider_admin', scopes, actor: null });
}

function expectErrorBody(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  const parsed = errorBodySchema.parse(result.body);
  expect(parsed.error.correlationId).toBe(result.headers.get('x-correlation-id'));
  return parsed.error;
}

async function newTenant(): Promise<string> {
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
  return created.body.id as string;
}

async function createProvider(tenantId: string, providerCode = 'mtn', name = 'MTN Mobile Money') {
  const created = await identity.request('POST', '/v1/admin/momo-providers', {
    body: { providerCode, name },
    token: tenantToken(tenantId),
  });
  expect(created.status).toBe(201);
  return momoProviderWithSecretSchema.parse(created.body);
}

const providerSecrets = async (tenantId: string) => {
  const answer = await identity.request('GET', `/internal/v1/tenants/${tenantId}/momo-providers`);
  expect(answer.status).toBe(200);
  return momoProviderSecretsSchema.parse(answer.body);
};

describe('POST /v1/admin/momo-providers', () => {
  it('registers a provider with a webhook secret shown once and stored only sealed', async () => {
    const tenantId = await newTenant();
    const provider = await createProvider(tenantId, 'airtel-ug', 'Airtel Money');
    expect(provider).toEqual({
      id: expect.stringMatching(/^mp_[0-9A-Z]{26}$/),
      tenantId,
      providerCode: 'airtel-ug',
      name: 'Airtel Money',
      secretCreatedAt: expect.any(String),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const stored = await identity.db('momo_provider_secrets').where({ provider_id: provider.id }).first();
    expect(stored.master_key_id).toBe('test-master-1');
    expect(stored.ciphertext.includes(Buffer.from(provider.webhookSecret))).toBe(false);
    for (const table of ['momo_providers', 'momo_provider_secrets', 'audit_events', 'outbox']) {
      const found = await identity.db.raw(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE ?`, [
        `%${provider.webhookSecret}%`,
      ]);
      expect(found.rows[0].n).toBe(0);
    }
  });

  it('refuses a provider code the tenant already has with 409 PROVIDER_EXISTS; another tenant may use it', async () => {
    const tenantId = await newTenant();
    await createProvider(tenantId, 'mpesa');
    const again = await identity.request('POST', '/v1/admin/momo-providers', {
      body: { providerCode: 'mpesa', name: 'Again' },
      token: tenantToken(tenantId, 'live'),
    });
    expect(expectErrorBody(again, 409, 'PROVIDER_EXISTS').details).toEqual({ providerCode: 'mpesa' });
    expect(await identity.db('momo_providers').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '1' },
    ]);
    await createProvider(await newTenant(), 'mpesa');
  });

  it('gives a provider code to exactly one of several concurrent requests', async () => {
    const tenantId = await newTenant();
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        identity.request('POST', '/v1/admin/momo-providers', {
          body: { providerCode: 'race', name: 'Race' },
          token: tenantToken(tenantId),
        }),
      ),
    );
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409]);
  });

  it.each([
    ['uppercase', 'MTN'],
    ['one character', 'm'],
    ['a leading dash', '-mtn'],
    ['a space', 'mt n'],
    ['33 characters', 'a'.repeat(33)],
  ])('refuses a code with %s', async (_label, providerCode) => {
    const tenantId = await newTenant();
    const error = expectErrorBody(
      await identity.request('POST', '/v1/admin/momo-providers', { body: { providerCode, name: 'X' }, token: tenantToken(tenantId) }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details?.fields).toEqual([expect.objectContaining({ path: 'providerCode' })]);
  });

  it('is a tenant route', async () => {
    expectErrorBody(
      await identity.request('POST', '/v1/admin/momo-providers', { body: { providerCode: 'mtn', name: 'MTN' } }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe('reading providers', () => {
  it('lists newest first in pages without secrets, the same from both environments', async () => {
    const tenantId = await newTenant();
    const created = [await createProvider(tenantId, 'one'), await createProvider(tenantId, 'two'), await createProvider(tenantId, 'three')];
    const listSchema = pageSchema(momoProviderSchema.strict());
    const pages = async (environment: 'live' | 'test') => {
      const first = listSchema.parse(
        (await identity.request('GET', '/v1/admin/momo-providers?limit=2', { token: tenantToken(tenantId, environment) })).body,
      );
      const path = `/v1/admin/momo-providers?limit=2&cursor=${encodeURIComponent(first.nextCursor as string)}`;
      const second = listSchema.parse((await identity.request('GET', path, { token: tenantToken(tenantId, environment) })).body);
      return { first, second };
    };
    const live = await pages('live');
    expect(live.first.data.map((provider) => provider.providerCode)).toEqual(['three', 'two']);
    expect(live.second).toEqual({ data: [expect.objectContaining({ providerCode: 'one' })], nextCursor: null });
    const test = await pages('test');
    expect(test.first.data).toEqual(live.first.data);
    expect(test.second).toEqual(live.second);
    // A cursor is its environment's: the live one is refused in test, even where the lists agree.
    const crossed = await identity.request(
      'GET',
      `/v1/admin/momo-providers?limit=2&cursor=${encodeURIComponent(live.first.nextCursor as string)}`,
      {
        token: tenantToken(tenantId, 'test'),
      },
    );
    expect(crossed.body).toMatchObject({ error: { code: 'INVALID_CURSOR' } });
    const text = JSON.stringify([live, test]);
    for (const provider of created) expect(text).not.toContain(provider.webhookSecret);
  });

  it("gets one provider, and answers 404 PROVIDER_NOT_FOUND for another tenant's", async () => {
    const tenantId = await newTenant();
    const provider = await createProvider(tenantId);
    const read = await identity.request('GET', `/v1/admin/momo-providers/${provider.id}`, { token: tenantToken(tenantId, 'live') });
    expect(read.status).toBe(200);
    const { webhookSecret: _secret, ...withoutSecret } = provider;
    expect(momoProviderSchema.strict().parse(read.body)).toEqual(withoutSecret);
    const other = await newTenant();
    expectErrorBody(
      await identity.request('GET', `/v1/admin/momo-providers/${provider.id}`, { token: tenantToken(other) }),
      404,
      'PROVIDER_NOT_FOUND',
    );
    expectErrorBody(
      await identity.request('POST', `/v1/admin/momo-providers/${provider.id}/rotate-secret`, { token: tenantToken(other) }),
      404,
      'PROVIDER_NOT_FOUND',
    );
  });
});

describe('rotating a webhook secret', () => {
  it('issues a new secret once; the old one verifies during the overlap only', async () => {
    const tenantId = await newTenant();
    const provider = await createProvider(tenantId);
    const rotated = await identity.request('POST', `/v1/admin/momo-providers/${provider.id}/rotate-secret`, {
      body: { expiresInSeconds: 600 },
      token: tenantToken(tenantId),
    });
    expect(rotated.status).toBe(200);
    const body = momoProviderWithSecretSchema.parse(rotated.body);
    expect(body.webhookSecret).not.toBe(provider.webhookSecret);
    expect(body).toMatchObject({ id: provider.id, providerCode: 'mtn' });
    expect(Date.parse(body.secretCreatedAt)).toBeGreaterThan(Date.parse(provider.secretCreatedAt));

    const during = await providerSecrets(tenantId);
    expect(during.data).toEqual([
      {
        id: provider.id,
        tenantId,
        providerCode: 'mtn',
        name: 'MTN Mobile Money',
        webhookSecrets: [
          { secret: body.webhookSecret, validUntil: null },
          { secret: provider.webhookSecret, validUntil: expect.any(String) },
        ],
      },
    ]);
    expect(Date.parse(during.data[0]?.webhookSecrets[1]?.validUntil as string)).toBeGreaterThan(Date.now() + 590_000);

    await identity
      .db('momo_provider_secrets')
      .where({ provider_id: provider.id })
      .whereNotNull('valid_until')
      .update({ valid_until: new Date(Date.now() - 1000) });
    expect((await providerSecrets(tenantId)).data[0]?.webhookSecrets).toEqual([{ secret: body.webhookSecret, validUntil: null }]);
  });

  it('ends the old secret at once by default, and audits both actions without secrets', async () => {
    const tenantId = await newTenant();
    const provider = await createProvider(tenantId);
    const rotated = await identity.request('POST', `/v1/admin/momo-providers/${provider.id}/rotate-secret`, {
      token: tenantToken(tenantId),
    });
    expect(rotated.status).toBe(200);
    expect((await providerSecrets(tenantId)).data[0]?.webhookSecrets).toEqual([{ secret: rotated.body.webhookSecret, validUntil: null }]);
    // Secrets that can never verify again are not kept.
    expect(await identity.db('momo_provider_secrets').where({ provider_id: provider.id }).count<{ count: string }[]>('* as count')).toEqual(
      [{ count: '1' }],
    );

    const audit = await identity.request('GET', `/v1/team/audit-events?targetId=${provider.id}`, { token: tenantToken(tenantId, 'live') });
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((record: { action: string }) => record.action)).toEqual([
      'momo_provider.secret_rotated',
      'momo_provider.created',
    ]);
    expect(audit.body.data[0]).toMatchObject({
      actorType: 'api_key',
      actorId: 'ak_provider_admin',
      targetType: 'momo_provider',
      metadata: { expiresInSeconds: 0 },
    });
    expect(audit.body.data[1].metadata).toEqual({ providerCode: 'mtn', name: 'MTN Mobile Money' });
    const text = JSON.stringify(audit.body);
    expect(text).not.toContain(provider.webhookSecret);
    expect(text).not.toContain(rotated.body.webhookSecret);
  });

  it.each([[-1], [604_801]])('refuses an overlap of %p', async (expiresInSeconds) => {
    const tenantId = await newTenant();
    const provider = await createProvider(tenantId);
    expectErrorBody(
      await identity.request('POST', `/v1/admin/momo-providers/${provider.id}/rotate-secret`, {
        body: { expiresInSeconds },
        token: tenantToken(tenantId),
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('GET /internal/v1/tenants/{tenantId}/momo-providers', () => {
  it("answers every provider of the tenant with its decrypted secrets, and nothing of other tenants'", async () => {
    const tenantId = await newTenant();
    const mtn = await createProvider(tenantId, 'mtn');
    const airtel = await createProvider(tenantId, 'airtel');
    await createProvider(await newTenant(), 'mtn');
    const answer = await providerSecrets(tenantId);
    expect(answer.data.map((provider) => [provider.providerCode, provider.webhookSecrets])).toEqual([
      ['mtn', [{ secret: mtn.webhookSecret, validUntil: null }]],
      ['airtel', [{ secret: airtel.webhookSecret, validUntil: null }]],
    ]);
    expect(await providerSecrets('tn_00000000000000000000000000')).toEqual({ data: [] });
  });

  it('answers only a system internal token', async () => {
    const tenantId = await newTenant();
    expectErrorBody(
      await identity.request('GET', `/internal/v1/tenants/${tenantId}/momo-providers`, { token: tenantToken(tenantId) }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});
