import { apiKeyPrincipalSchema, type Environment, errorBodySchema, signingMaterialSchema } from '@wallet/contracts';
import { AppError, createLogger } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { createIdentityKeysClient } from '../../gateway/src/features/auth/identity-keys-client';
import { type HttpResult, type IdentityHarness, INTERNAL_SECRET, internalToken, startIdentityHarness, tenantBody } from './support';

/**
 * identity's two internal key routes, as the gateway calls them: over HTTP with a system
 * internal token, against the real database. Nothing is faked.
 */
let identity: IdentityHarness;

beforeAll(async () => {
  identity = await startIdentityHarness();
});

afterAll(async () => {
  await identity?.close();
});

function expectRefusal(result: HttpResult, code: 'INVALID_API_KEY' | 'API_KEY_REVOKED' | 'API_KEY_EXPIRED') {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`401 ${code}`);
  errorBodySchema.parse(result.body);
}

async function newTenant(): Promise<string> {
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
  return created.body.id as string;
}

async function createKey(tenantId: string, body: Record<string, unknown> = {}) {
  const created = await identity.request('POST', `/v1/tenants/${tenantId}/api-keys`, {
    body: { name: 'Key', scopes: ['wallets:read'], environment: 'test', ...body },
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; key?: string; signingSecret?: string; environment: Environment; expiresAt: string | null };
}

async function rotate(tenantId: string, keyId: string, expiresInSeconds: number) {
  const rotated = await identity.request('POST', `/v1/tenants/${tenantId}/api-keys/${keyId}/rotate`, { body: { expiresInSeconds } });
  expect(rotated.status).toBe(200);
  return rotated.body as { key?: string; signingSecret?: string };
}

const authenticate = (key: string, token?: string) =>
  identity.request('POST', '/internal/v1/api-keys/authenticate-secret', { body: { key }, ...(token ? { token } : {}) });
const signingMaterial = (keyId: string) => identity.request('GET', `/internal/v1/api-keys/${keyId}/signing-material`);

/** Moves a credential's end into the past, as the clock would. */
async function endOverlapNow(keyId: string): Promise<void> {
  await identity
    .db('api_key_credentials')
    .where({ key_id: keyId })
    .whereNotNull('valid_until')
    .update({ valid_until: new Date(Date.now() - 1000) });
}

describe('POST /internal/v1/api-keys/authenticate-secret', () => {
  it('answers the principal of a current secret key', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId, {
      scopes: ['wallets:read', 'transfers:create'],
      restrictions: { requireActorHeaders: true, allowedIps: ['10.0.0.0/8'] },
    });
    const answer = await authenticate(key.key as string);
    expect(answer.status).toBe(200);
    expect(apiKeyPrincipalSchema.strict().parse(answer.body)).toEqual({
      keyId: key.id,
      tenantId,
      environment: 'test',
      authMode: 'secret',
      scopes: ['wallets:read', 'transfers:create'],
      restrictions: { requireRequestSigning: false, requireActorHeaders: true, allowedIps: ['10.0.0.0/8'] },
      validUntil: null,
    });
  });

  it("gives the key's expiry as validUntil, and API_KEY_EXPIRED once it passed", async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId, { expiresInSeconds: 600 });
    expect((await authenticate(key.key as string)).body.validUntil).toBe(key.expiresAt);
    await identity
      .db('api_keys')
      .where({ id: key.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectRefusal(await authenticate(key.key as string), 'API_KEY_EXPIRED');
  });

  it('refuses an unknown key, and an hmac signing secret sent as a key, with INVALID_API_KEY', async () => {
    const tenantId = await newTenant();
    expectRefusal(await authenticate('sk_test_0000000000000000000000000000000000000000'), 'INVALID_API_KEY');
    const hmacKey = await createKey(tenantId, { authMode: 'hmac' });
    expectRefusal(await authenticate(hmacKey.signingSecret as string), 'INVALID_API_KEY');
  });

  it('refuses a revoked key with API_KEY_REVOKED, also for its secrets still in a rotation overlap', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId);
    const rotated = await rotate(tenantId, key.id, 3600);
    expect((await authenticate(key.key as string)).status).toBe(200);
    expect((await identity.request('POST', `/v1/tenants/${tenantId}/api-keys/${key.id}/revoke`)).status).toBe(200);
    expectRefusal(await authenticate(rotated.key as string), 'API_KEY_REVOKED');
    expectRefusal(await authenticate(key.key as string), 'API_KEY_REVOKED');
  });

  it('keeps the old secret working during the overlap, with its end as validUntil, then API_KEY_EXPIRED', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId);
    const before = Date.now();
    const rotated = await rotate(tenantId, key.id, 120);
    const old = await authenticate(key.key as string);
    expect(old.status).toBe(200);
    const oldValidUntil = Date.parse(old.body.validUntil);
    expect(oldValidUntil).toBeGreaterThanOrEqual(before + 119_000);
    expect(oldValidUntil).toBeLessThanOrEqual(Date.now() + 121_000);
    expect((await authenticate(rotated.key as string)).body.validUntil).toBeNull();

    await endOverlapNow(key.id);
    expectRefusal(await authenticate(key.key as string), 'API_KEY_EXPIRED');
    expect((await authenticate(rotated.key as string)).status).toBe(200);
  });

  it('ends a short overlap on the clock', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId);
    await rotate(tenantId, key.id, 1);
    expect((await authenticate(key.key as string)).status).toBe(200);
    await waitFor(async () => ((await authenticate(key.key as string)).body?.error?.code === 'API_KEY_EXPIRED' ? true : undefined), {
      timeoutMs: 5000,
      what: 'the old secret to expire',
    });
  });

  it('ends the old secret at once with no overlap, and a rotation without overlap also ends earlier overlaps', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId);
    const second = await rotate(tenantId, key.id, 3600);
    expect((await authenticate(key.key as string)).status).toBe(200);
    const third = await rotate(tenantId, key.id, 0);
    expectRefusal(await authenticate(key.key as string), 'API_KEY_EXPIRED');
    expectRefusal(await authenticate(second.key as string), 'API_KEY_EXPIRED');
    expect((await authenticate(third.key as string)).status).toBe(200);
  });

  it('answers only a system internal token', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId);
    const tenantToken = internalToken({ surface: 'tenant', tenantId, environment: 'test', scopes: ['tenant:manage'], keyId: key.id });
    const refused = await authenticate(key.key as string, tenantToken);
    expect(`${refused.status} ${refused.body.error.code}`).toBe('403 INSUFFICIENT_SCOPE');
    const anonymous = await identity.request('POST', '/internal/v1/api-keys/authenticate-secret', { body: { key: key.key }, token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('INVALID_INTERNAL_TOKEN');
  });
});

describe('GET /internal/v1/api-keys/{keyId}/signing-material', () => {
  it('answers the principal and the decrypted signing secret of an hmac key', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId, { authMode: 'hmac', environment: 'live', scopes: ['ledger:read'], expiresInSeconds: 86_400 });
    const answer = await signingMaterial(key.id);
    expect(answer.status).toBe(200);
    expect(signingMaterialSchema.parse(answer.body)).toEqual({
      principal: {
        keyId: key.id,
        tenantId,
        environment: 'live',
        authMode: 'hmac',
        scopes: ['ledger:read'],
        restrictions: { requireRequestSigning: true, requireActorHeaders: false, allowedIps: null },
        validUntil: key.expiresAt,
      },
      signingSecrets: [{ secret: key.signingSecret, validUntil: null }],
    });
  });

  it('answers the current and the overlapping previous secret after a rotation, then only the current one', async () => {
    const tenantId = await newTenant();
    const key = await createKey(tenantId, { authMode: 'hmac' });
    const rotated = await rotate(tenantId, key.id, 300);
    const answer = signingMaterialSchema.parse((await signingMaterial(key.id)).body);
    expect(answer.signingSecrets).toEqual([
      { secret: rotated.signingSecret, validUntil: null },
      { secret: key.signingSecret, validUntil: expect.any(String) },
    ]);
    expect(Date.parse(answer.signingSecrets[1]?.validUntil as string)).toBeGreaterThan(Date.now() + 290_000);

    await endOverlapNow(key.id);
    expect(signingMaterialSchema.parse((await signingMaterial(key.id)).body).signingSecrets).toEqual([
      { secret: rotated.signingSecret, validUntil: null },
    ]);
    // The next rotation deletes what can never verify again.
    const third = await rotate(tenantId, key.id, 0);
    expect(signingMaterialSchema.parse((await signingMaterial(key.id)).body).signingSecrets).toEqual([
      { secret: third.signingSecret, validUntil: null },
    ]);
    expect(await identity.db('api_key_credentials').where({ key_id: key.id }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '1' },
    ]);
  });

  it('refuses unknown keys and secret keys with INVALID_API_KEY, revoked with API_KEY_REVOKED, expired with API_KEY_EXPIRED', async () => {
    const tenantId = await newTenant();
    expectRefusal(await signingMaterial('ak_00000000000000000000000000'), 'INVALID_API_KEY');
    const secretKey = await createKey(tenantId);
    expectRefusal(await signingMaterial(secretKey.id), 'INVALID_API_KEY');
    const revoked = await createKey(tenantId, { authMode: 'hmac' });
    await identity.request('POST', `/v1/tenants/${tenantId}/api-keys/${revoked.id}/revoke`);
    expectRefusal(await signingMaterial(revoked.id), 'API_KEY_REVOKED');
    const expired = await createKey(tenantId, { authMode: 'hmac', expiresInSeconds: 60 });
    await identity
      .db('api_keys')
      .where({ id: expired.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectRefusal(await signingMaterial(expired.id), 'API_KEY_EXPIRED');
  });
});

describe("the gateway's own client against identity", () => {
  const client = () =>
    createIdentityKeysClient({
      identityUrl: `http://127.0.0.1:${identity.service.port}`,
      internalTokenSecret: INTERNAL_SECRET,
      timeoutMs: 5000,
      logger: createLogger({ service: 'gateway-client-test', level: 'silent' }),
    });

  it('reads principals and signing material, and passes the refusals on by code', async () => {
    const tenantId = await newTenant();
    const secretKey = await createKey(tenantId);
    const hmacKey = await createKey(tenantId, { authMode: 'hmac' });
    expect((await client().authenticateSecret(secretKey.key as string)).keyId).toBe(secretKey.id);
    expect((await client().signingMaterial(hmacKey.id)).signingSecrets[0]?.secret).toBe(hmacKey.signingSecret);

    await identity.request('POST', `/v1/tenants/${tenantId}/api-keys/${secretKey.id}/revoke`);
    const refusal = await client()
      .authenticateSecret(secretKey.key as string)
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('API_KEY_REVOKED');
    const unknown = await client()
      .signingMaterial(secretKey.id)
      .catch((error: unknown) => error);
    expect((unknown as AppError).code).toBe('INVALID_API_KEY');
  });
});
