import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { momoProviderSecretsSchema, signingMaterialSchema } from '@wallet/contracts';
import { createDb, type Db, type RunningService } from '@wallet/kit';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import { start } from '../src/main';
import { MasterKeyRing } from '../src/features/secrets/master-keys';
import { SecretBox } from '../src/features/secrets/secret-box';
import { type IdentityHarness, INTERNAL_SECRET, internalToken, startIdentityHarness, tenantBody } from './support';

const run = promisify(execFile);

function masterKey(id: string): { id: string; key: Buffer; text: string } {
  const key = randomBytes(32);
  return { id, key, text: `${id}:${key.toString('base64')}` };
}

/** A call to a service started in the test, as the gateway makes it. */
async function call(service: RunningService, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${service.port}${path}`, {
    method,
    headers: { 'x-internal-token': internalToken(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('the secret box', () => {
  const a = masterKey('a');
  const b = masterKey('b');

  it('opens what it sealed, with a fresh IV each time', () => {
    const box = new SecretBox(new MasterKeyRing(a));
    const first = box.seal('sig_test_secret', 'api_key.signing_secret:ak_1');
    const second = box.seal('sig_test_secret', 'api_key.signing_secret:ak_1');
    expect(first.masterKeyId).toBe('a');
    expect(first.ciphertext.equals(second.ciphertext)).toBe(false);
    expect(first.ciphertext.includes(Buffer.from('sig_test_secret'))).toBe(false);
    expect(box.open(first, 'api_key.signing_secret:ak_1')).toBe('sig_test_secret');
  });

  it('refuses another context, a changed byte and an unknown master key', () => {
    const box = new SecretBox(new MasterKeyRing(a));
    const sealed = box.seal('whsec_value', 'momo_provider.webhook_secret:mp_1');
    expect(() => box.open(sealed, 'momo_provider.webhook_secret:mp_2')).toThrow();
    const tampered = Buffer.from(sealed.ciphertext);
    tampered[14] = (tampered[14] as number) ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: tampered }, 'momo_provider.webhook_secret:mp_1')).toThrow();
    expect(() => new SecretBox(new MasterKeyRing(b)).open(sealed, 'momo_provider.webhook_secret:mp_1')).toThrow(/"a"/);
  });

  it('opens with an old key and seals with the current one', () => {
    const sealed = new SecretBox(new MasterKeyRing(a)).seal('value', 'ctx');
    const rotated = new SecretBox(new MasterKeyRing(b, [a]));
    expect(rotated.open(sealed, 'ctx')).toBe('value');
    expect(rotated.seal('value', 'ctx').masterKeyId).toBe('b');
  });

  it('refuses one id for two different keys', () => {
    expect(() => new MasterKeyRing(a, [{ id: 'a', key: b.key }])).toThrow(/SECRETS_ENCRYPTION_KEYS_OLD.*"a"/);
  });
});

describe('master key configuration', () => {
  const baseEnv = (): NodeJS.ProcessEnv => ({
    ...process.env,
    IDENTITY_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: 'silent',
    SECRETS_ENCRYPTION_KEY: undefined,
    SECRETS_ENCRYPTION_KEYS_OLD: undefined,
  });
  const shortKey = `k1:${randomBytes(16).toString('base64')}`;

  it.each([
    ['missing', {}, /SECRETS_ENCRYPTION_KEY: is required/],
    ['without a key id', { SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') }, /SECRETS_ENCRYPTION_KEY: must be <keyId>:<base64/],
    ['16 bytes long', { SECRETS_ENCRYPTION_KEY: shortKey }, /SECRETS_ENCRYPTION_KEY: the key of "k1" is 16 bytes; it must be exactly 32/],
    ['not base64', { SECRETS_ENCRYPTION_KEY: 'k1:not*base64' }, /SECRETS_ENCRYPTION_KEY: the key of "k1" is not base64/],
    [
      'fine, with a bad old key',
      { SECRETS_ENCRYPTION_KEY: masterKey('k2').text, SECRETS_ENCRYPTION_KEYS_OLD: `${masterKey('k1').text},${shortKey}` },
      /SECRETS_ENCRYPTION_KEYS_OLD: entry 2: the key of "k1" is 16 bytes/,
    ],
  ])('stops the service when the key is %s, naming the variable and never the value', async (_label, env, message) => {
    const failure = await start({ ...baseEnv(), ...env }).then(
      (service) => service.close().then(() => new Error('started')),
      (error: unknown) => error as Error,
    );
    expect(failure.message).toMatch(message);
    expect(failure.message).not.toContain(shortKey.split(':')[1]);
  });
});

describe('rotating the master key', () => {
  const a = masterKey('key-a');
  const b = masterKey('key-b');
  let databaseUrl: string;
  let amqpUrl: string;
  let running: RunningService | null = null;
  let db: Db;

  const envWith = (keys: { current: string; old?: string }): NodeJS.ProcessEnv => ({
    ...process.env,
    IDENTITY_DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    IDENTITY_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: 'silent',
    SMTP_URL: '',
    SECRETS_ENCRYPTION_KEY: keys.current,
    SECRETS_ENCRYPTION_KEYS_OLD: keys.old ?? '',
  });

  const sealedKeyIds = async () => ({
    signing: await db('api_key_credentials').whereNotNull('signing_secret_ciphertext').distinct('master_key_id').pluck('master_key_id'),
    webhook: await db('momo_provider_secrets').distinct('master_key_id').pluck('master_key_id'),
  });

  beforeAll(async () => {
    databaseUrl = await createTestDatabase('identity_master_key', { migratedFor: 'identity' });
    amqpUrl = await createTestVhost('identity_master_key');
    db = createDb(databaseUrl, { poolMax: 2 });
  });

  afterAll(async () => {
    await running?.close();
    await db?.destroy();
  });

  it('re-encrypts every sealed secret at start once the old key moved to SECRETS_ENCRYPTION_KEYS_OLD, and refuses to start without it', async () => {
    running = await start(envWith({ current: a.text }));
    const tenant = await call(running, 'POST', '/v1/tenants', tenantBody());
    const tenantId = tenant.body.id as string;
    const hmacKeys = [];
    for (let index = 0; index < 3; index += 1)
      hmacKeys.push(
        (
          await call(running, 'POST', `/v1/tenants/${tenantId}/api-keys`, {
            name: `Signer ${index}`,
            authMode: 'hmac',
            scopes: ['wallets:read'],
            environment: 'test',
          })
        ).body,
      );
    const firstKey = hmacKeys[0] as { id: string; signingSecret: string };
    const rotated = (await call(running, 'POST', `/v1/tenants/${tenantId}/api-keys/${firstKey.id}/rotate`, { expiresInSeconds: 3600 }))
      .body as { signingSecret: string };
    const providerResponse = await fetch(`http://127.0.0.1:${running.port}/v1/admin/momo-providers`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-internal-token': internalToken({
          surface: 'tenant',
          tenantId,
          environment: 'test',
          scopes: ['providers:manage'],
          authMode: 'secret',
          keyId: 'ak_x',
        }),
      },
      body: JSON.stringify({ providerCode: 'mtn', name: 'MTN' }),
    });
    const provider = (await providerResponse.json()) as { id: string; webhookSecret: string };
    expect(await sealedKeyIds()).toEqual({ signing: ['key-a'], webhook: ['key-a'] });
    const ciphertextsBefore = await db('api_key_credentials')
      .whereNotNull('signing_secret_ciphertext')
      .orderBy('id')
      .pluck('signing_secret_ciphertext');
    await running.close();
    running = null;

    // Only the new key: the rows need key-a, which nobody configured.
    const refusal = await start(envWith({ current: b.text })).then(
      (service) => service.close().then(() => new Error('started')),
      (error: unknown) => error as Error,
    );
    expect(refusal.message).toMatch(/master key "key-a".*SECRETS_ENCRYPTION_KEYS_OLD/);
    expect(await sealedKeyIds()).toEqual({ signing: ['key-a'], webhook: ['key-a'] });

    running = await start(envWith({ current: b.text, old: a.text }));
    expect(await sealedKeyIds()).toEqual({ signing: ['key-b'], webhook: ['key-b'] });
    const ciphertextsAfter = await db('api_key_credentials')
      .whereNotNull('signing_secret_ciphertext')
      .orderBy('id')
      .pluck('signing_secret_ciphertext');
    expect(ciphertextsAfter).toHaveLength(ciphertextsBefore.length);
    ciphertextsAfter.forEach((after: Buffer, index: number) => expect(after.equals(ciphertextsBefore[index] as Buffer)).toBe(false));

    const material = signingMaterialSchema.parse(
      (await call(running, 'GET', `/internal/v1/api-keys/${firstKey.id}/signing-material`)).body,
    );
    expect(material.signingSecrets.map((entry) => entry.secret)).toEqual([rotated.signingSecret, firstKey.signingSecret]);
    for (const key of hmacKeys.slice(1) as Array<{ id: string; signingSecret: string }>) {
      expect(
        signingMaterialSchema.parse((await call(running, 'GET', `/internal/v1/api-keys/${key.id}/signing-material`)).body).signingSecrets[0]
          ?.secret,
      ).toBe(key.signingSecret);
    }
    const providers = momoProviderSecretsSchema.parse((await call(running, 'GET', `/internal/v1/tenants/${tenantId}/momo-providers`)).body);
    expect(providers.data[0]?.webhookSecrets[0]?.secret).toBe(provider.webhookSecret);
    await running.close();
    running = null;

    // Nothing needs key-a any more: it can leave the configuration.
    running = await start(envWith({ current: b.text }));
    expect(
      signingMaterialSchema.parse((await call(running, 'GET', `/internal/v1/api-keys/${firstKey.id}/signing-material`)).body)
        .signingSecrets[0]?.secret,
    ).toBe(rotated.signingSecret);
  });
});

describe('a database dump', () => {
  let identity: IdentityHarness;

  beforeAll(async () => {
    identity = await startIdentityHarness();
  });

  afterAll(async () => {
    await identity?.close();
  });

  it('holds no secret key, signing secret or webhook secret', async () => {
    const tenantId = (await identity.request('POST', '/v1/tenants', { body: tenantBody() })).body.id as string;
    const token = internalToken({
      surface: 'tenant',
      tenantId,
      environment: 'test',
      scopes: ['tenant:manage'],
      authMode: 'session',
      actor: { type: 'team_member', id: 'usr_dumper' },
    });
    const secrets: string[] = [];
    for (const [authMode, environment] of [
      ['secret', 'test'],
      ['secret', 'live'],
      ['hmac', 'test'],
      ['hmac', 'live'],
    ] as const) {
      const created = await identity.request('POST', '/v1/developer/api-keys', {
        body: { name: `${authMode} ${environment}`, authMode, environment, scopes: ['wallets:read'] },
        token,
      });
      expect(created.status).toBe(201);
      secrets.push(created.body.key ?? created.body.signingSecret);
      const rotated = await identity.request('POST', `/v1/developer/api-keys/${created.body.id}/rotate`, {
        body: { expiresInSeconds: 600 },
        token,
      });
      secrets.push(rotated.body.key ?? rotated.body.signingSecret);
    }
    const provider = await identity.request('POST', '/v1/admin/momo-providers', { body: { providerCode: 'mtn', name: 'MTN' }, token });
    secrets.push(provider.body.webhookSecret);
    const rotatedProvider = await identity.request('POST', `/v1/admin/momo-providers/${provider.body.id}/rotate-secret`, {
      body: { expiresInSeconds: 600 },
      token,
    });
    secrets.push(rotatedProvider.body.webhookSecret);
    expect(secrets).toHaveLength(10);
    for (const secret of secrets) expect(secret).toMatch(/^(sk|sig)_(test|live)_|^whsec_/);

    const { stdout: dump } = await run('/usr/bin/pg_dump', ['--format=plain', '--no-owner', '--dbname', identity.databaseUrl], {
      maxBuffer: 64 * 1024 * 1024,
    });
    // The dump has the data: the keys' rows are in it, only their secrets are not.
    expect(dump).toContain(tenantId);
    expect(dump).toContain('COPY public.api_key_credentials');
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      // Nor the random part alone, nor its base64 (a bytea written as text would show that).
      const randomPart = secret.replace(/^(sk|sig)_(test|live)_|^whsec_/, '');
      expect(dump).not.toContain(randomPart);
      expect(dump).not.toContain(Buffer.from(secret).toString('hex'));
    }
  });
});
