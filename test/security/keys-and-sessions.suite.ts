import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { waitFor } from '@wallet/kit/testing';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from './in-process-system';

/**
 * Keys and sessions end to end: the SDK calls the real gateway, which asks the real identity
 * service, which keeps keys in its own database. Nothing here stands in for a service.
 */
let system: SecuritySystem;
let platform: WalletClient;

beforeAll(async () => {
  system = await startSecuritySystem('security_keys', { GATEWAY_KEY_CACHE_TTL_MS: '60000' });
  platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
});

afterAll(async () => {
  await system?.close();
});

async function newTenant(): Promise<string> {
  const slug = `sec-${randomUUID().slice(0, 8)}`;
  const tenant = await platform.system.tenants.create({
    name: slug,
    slug,
    config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '100000' },
  });
  return tenant.id;
}

function client(baseUrl: string, auth: ConstructorParameters<typeof WalletClient>[0]['auth']): WalletClient {
  // No retries: each assertion is about one request.
  return new WalletClient({ baseUrl, auth, maxRetries: 0 });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isWalletApiError(error)) return error.code;
    throw error;
  }
  return 'OK';
}

describe('secret keys through the gateway', () => {
  it('keeps the old secret working until the rotation overlap ends, then answers 401 (also from a warm cache)', async () => {
    const tenantId = await newTenant();
    const created = await platform.apiKeys.createForTenant(tenantId, {
      name: 'rotating',
      scopes: ['ledger:read', 'api_keys:manage'],
      environment: 'test',
    });
    const oldKey = client(system.publicUrl, { type: 'secret', apiKey: created.key as string });
    expect(await codeOf(oldKey.journal.list())).toBe('OK');

    const rotated = await oldKey.apiKeys.rotate(created.id, { expiresInSeconds: 2 });
    const newKey = client(system.publicUrl, { type: 'secret', apiKey: rotated.key as string });
    expect(rotated.key).not.toBe(created.key);
    expect(await codeOf(newKey.journal.list())).toBe('OK');
    expect(await codeOf(oldKey.journal.list())).toBe('OK');

    await waitFor(async () => ((await codeOf(oldKey.journal.list())) === 'API_KEY_EXPIRED' ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: 'the old secret to expire',
    });
    expect(await codeOf(newKey.journal.list())).toBe('OK');
  });

  it('refuses a revoked key on the very next request through the gateway that revoked it, and soon through every other', async () => {
    const tenantId = await newTenant();
    const second = await system.addGateway();
    const created = await platform.apiKeys.createForTenant(tenantId, { name: 'doomed', scopes: ['ledger:read'], environment: 'live' });
    const viaFirst = client(system.publicUrl, { type: 'secret', apiKey: created.key as string });
    const viaSecond = client(second.publicUrl, { type: 'secret', apiKey: created.key as string });
    // Warm both caches.
    expect(await codeOf(viaFirst.journal.list())).toBe('OK');
    expect(await codeOf(viaSecond.journal.list())).toBe('OK');

    const revoked = await new WalletClient({
      baseUrl: system.publicUrl,
      auth: { type: 'system', systemKey: SYSTEM_KEY },
    }).apiKeys.revokeForTenant(tenantId, created.id);
    expect(revoked.status).toBe('revoked');
    expect(await codeOf(viaFirst.journal.list())).toBe('API_KEY_REVOKED');
    await waitFor(async () => ((await codeOf(viaSecond.journal.list())) === 'API_KEY_REVOKED' ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'the second gateway to drop its cached key',
    });
  });

  it('lets a key create only keys within its own scopes', async () => {
    const tenantId = await newTenant();
    const created = await platform.apiKeys.createForTenant(tenantId, {
      name: 'developer',
      scopes: ['api_keys:manage', 'ledger:read'],
      environment: 'test',
    });
    const developer = client(system.publicUrl, { type: 'secret', apiKey: created.key as string });
    expect(await codeOf(developer.apiKeys.create({ name: 'wider', scopes: ['ledger:write'], environment: 'test' }))).toBe(
      'SCOPE_ESCALATION',
    );
    expect(await codeOf(developer.apiKeys.create({ name: 'narrower', scopes: ['wallets:read'], environment: 'test' }))).toBe('OK');
  });
});

describe('signed requests through the gateway', () => {
  it('authenticates an hmac key with its signing secret and refuses its secret-less use', async () => {
    const tenantId = await newTenant();
    const created = await platform.apiKeys.createForTenant(tenantId, {
      name: 'signer',
      authMode: 'hmac',
      scopes: ['ledger:read'],
      environment: 'test',
    });
    const signer = client(system.publicUrl, { type: 'hmac', keyId: created.id, signingSecret: created.signingSecret as string });
    expect(await codeOf(signer.journal.list({ limit: 5 }))).toBe('OK');
    const forger = client(system.publicUrl, { type: 'hmac', keyId: created.id, signingSecret: 'sig_test_not-the-secret' });
    expect(await codeOf(forger.journal.list())).toBe('INVALID_REQUEST_SIGNATURE');
  });

  it('verifies the previous signing secret during the rotation overlap only', async () => {
    const tenantId = await newTenant();
    const created = await platform.apiKeys.createForTenant(tenantId, {
      name: 'signer',
      authMode: 'hmac',
      scopes: ['ledger:read'],
      environment: 'live',
    });
    const before = client(system.publicUrl, { type: 'hmac', keyId: created.id, signingSecret: created.signingSecret as string });
    expect(await codeOf(before.journal.list())).toBe('OK');
    const rotated = await platform.apiKeys.rotateForTenant(tenantId, created.id, { expiresInSeconds: 0 });
    const after = client(system.publicUrl, { type: 'hmac', keyId: created.id, signingSecret: rotated.signingSecret as string });
    expect(await codeOf(after.journal.list())).toBe('OK');
    await waitFor(async () => ((await codeOf(before.journal.list())) === 'INVALID_REQUEST_SIGNATURE' ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'the old signing secret to stop verifying',
    });
  });
});

describe('refusals of signed requests by the real identity service', () => {
  it('refuses a revoked hmac key, and a secret key presented as a signing key', async () => {
    const tenantId = await newTenant();
    const created = await platform.apiKeys.createForTenant(tenantId, {
      name: 'signer',
      authMode: 'hmac',
      scopes: ['ledger:read'],
      environment: 'test',
    });
    await platform.apiKeys.revokeForTenant(tenantId, created.id);
    const revoked = client(system.publicUrl, { type: 'hmac', keyId: created.id, signingSecret: created.signingSecret as string });
    expect(await codeOf(revoked.journal.list())).toBe('API_KEY_REVOKED');

    const secret = await platform.apiKeys.createForTenant(tenantId, { name: 'secret', scopes: ['ledger:read'], environment: 'test' });
    const posing = client(system.publicUrl, { type: 'hmac', keyId: secret.id, signingSecret: secret.key as string });
    expect(await codeOf(posing.journal.list())).toBe('INVALID_API_KEY');
  });

  it('refuses an expired key', async () => {
    const tenantId = await newTenant();
    const created = await platform.apiKeys.createForTenant(tenantId, {
      name: 'short-lived',
      authMode: 'hmac',
      scopes: ['ledger:read'],
      environment: 'test',
      expiresInSeconds: 60,
    });
    await system
      .identityDb('api_keys')
      .where({ id: created.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = client(system.publicUrl, { type: 'hmac', keyId: created.id, signingSecret: created.signingSecret as string });
    expect(await codeOf(expired.journal.list())).toBe('API_KEY_EXPIRED');
  });
});

interface LoginAnswer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
}

/** A login sent from this loopback address: the gateway takes the socket's address for the client's (X-Forwarded-For is not trusted). */
function loginFrom(localAddress: string, body: { email: string; password: string }): Promise<LoginAnswer> {
  const headers = { 'content-type': 'application/json' };
  return new Promise((resolve, reject) => {
    const request = http.request(new URL('/v1/auth/login', system.publicUrl), { method: 'POST', localAddress, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code: string } };
        resolve({ status: response.statusCode ?? 0, code: answer.error?.code, retryAfter: response.headers['retry-after'] });
      });
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('dashboard sessions through the gateway', () => {
  it('logs a member in, acts as that member, and ends on logout and on deactivation', async () => {
    const tenantId = await newTenant();
    const admin = await platform.apiKeys.createForTenant(tenantId, { name: 'admin', scopes: ['tenant:manage'], environment: 'live' });
    const adminClient = client(system.publicUrl, { type: 'secret', apiKey: admin.key as string });
    const email = `ops-${randomUUID().slice(0, 8)}@example.com`;
    const password = 'correct horse battery staple';
    const member = await adminClient.team.create({ name: 'Ops', email, password, orgRole: 'developer' });

    const anonymous = new WalletClient({ baseUrl: system.publicUrl, maxRetries: 0 });
    expect(await codeOf(anonymous.auth.login({ email, password: 'wrong password here' }))).toBe('INVALID_CREDENTIALS');
    const session = await anonymous.auth.login({ email, password });
    expect(session.member.id).toBe(member.id);
    const dashboard = client(system.publicUrl, { type: 'session', token: session.token });
    expect(await codeOf(dashboard.apiKeys.list())).toBe('OK');
    // A developer's session cannot manage the team, nor hand itself more through a key.
    expect(await codeOf(dashboard.team.list())).toBe('INSUFFICIENT_SCOPE');
    expect(await codeOf(dashboard.apiKeys.create({ name: 'mine', scopes: ['team:manage'], environment: 'live' }))).toBe('SCOPE_ESCALATION');

    // The refusal is in the tenant's request logs, naming the member who was refused.
    const refused = await waitFor(
      async () => {
        const logs = await adminClient.requestLogs.list({ status: 403 });
        return logs.data.find((log) => log.path === '/v1/team' && log.actorId === member.id);
      },
      { timeoutMs: 5_000, intervalMs: 100, what: 'the refused request in the request logs' },
    );
    expect(refused).toMatchObject({ errorCode: 'INSUFFICIENT_SCOPE', authMode: 'session', actorType: 'team_member' });

    const events = await adminClient.auditEvents.list({ action: 'session.created' });
    expect(events.data.map((event) => [event.actorId, event.metadata.environment])).toContainEqual([member.id, 'live']);

    await anonymous.auth.logout(session.token);
    expect(await codeOf(dashboard.apiKeys.list())).toBe('INVALID_SESSION');

    const again = client(system.publicUrl, { type: 'session', token: (await anonymous.auth.login({ email, password })).token });
    expect(await codeOf(again.apiKeys.list())).toBe('OK');
    await adminClient.team.update(member.id, { status: 'deactivated' });
    expect(await codeOf(again.apiKeys.list())).toBe('INVALID_SESSION');
  });

  it('locks a login address whatever client addresses its wrong passwords come from: the right one from another is 429', async () => {
    const tenantId = await newTenant();
    const admin = await platform.apiKeys.createForTenant(tenantId, { name: 'admin', scopes: ['tenant:manage'], environment: 'live' });
    const adminClient = client(system.publicUrl, { type: 'secret', apiKey: admin.key as string });
    const email = `spread-${randomUUID().slice(0, 8)}@example.com`;
    const password = 'correct horse battery staple';
    await adminClient.team.create({ name: 'Spread', email, password, orgRole: 'developer' });

    // One wrong password from each of five addresses: each stays far below the gateway's limit per address.
    for (const host of [10, 11, 12, 13, 14]) {
      const answer = await loginFrom(`127.0.0.${host}`, { email, password: 'wrong password here' });
      expect(answer).toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
    }
    const refused = await loginFrom('127.0.0.15', { email, password });
    expect(refused).toMatchObject({ status: 429, code: 'LOGIN_TEMPORARILY_LOCKED', retryAfter: expect.stringMatching(/^\d+$/) });
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
  });
});
