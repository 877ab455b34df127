import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { type ApiKeyChangedV1, type ApiKeyPrincipal, signRequest, TOPOLOGY } from '@wallet/contracts';
import { AppError, Broker, createDb, createLogger, type Db, declareIdentityEvents, purgeRule } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { signedRequestAuthenticator } from '../src/features/auth/authenticators';
import { createIdentityKeysClient } from '../src/features/auth/identity-keys-client';
import { KeyCache } from '../src/features/auth/key-cache';
import { NONCE_RETENTION_MS, signedRequestResolver } from '../src/features/auth/key-credentials';
import { isAddressAllowed } from '../src/features/auth/key-restrictions';
import { createNonceStore, nonceRetentionRule } from '../src/features/auth/nonce-store';
import { type IdentityPeer, restrictions, startIdentityPeer } from './identity-peer';
import {
  gatewayEnv,
  type GatewayClient,
  INTERNAL_SECRET,
  prepareGatewayInfrastructure,
  read,
  type ResponseBody,
  startGateway,
  startUpstreamPeer,
  type UpstreamPeer,
} from './support';

/**
 * Real parts: two gateway instances in-process sharing one fresh database (request nonces)
 * and one fresh vhost (key change messages), a real HTTP peer for identity's two internal key
 * routes over an in-test key table, and the echo upstream behind them. The clock signed
 * requests are checked against is injected and fixed, so skews are exact without sleeping.
 */
const NOW_MS = Date.parse('2026-11-22T12:00:00.000Z');
const TENANT = 'tn_acme';

let identity: IdentityPeer;
let upstream: UpstreamPeer;
let first: GatewayClient;
let second: GatewayClient;
let databaseUrl: string;
let amqpUrl: string;
let publisher: Broker;
let db: Db;

function principal(keyId: string, overrides: Partial<ApiKeyPrincipal> = {}): ApiKeyPrincipal {
  return {
    keyId,
    tenantId: TENANT,
    environment: 'test',
    authMode: 'hmac',
    scopes: ['ledger:read'],
    restrictions: restrictions({ requireRequestSigning: true }),
    validUntil: null,
    ...overrides,
  };
}

/** A fresh hmac key in identity's table; its id is unique so no test sees another's cache. */
function hmacKey(
  label: string,
  overrides: Partial<ApiKeyPrincipal> = {},
  secrets?: Array<{ secret: string; validUntil: string | null }>,
): { keyId: string; secret: string } {
  const keyId = `ak_${label}_${randomUUID().slice(0, 8)}`;
  const secret = `ss_${randomUUID()}`;
  identity.hmacKeys.set(keyId, {
    principal: principal(keyId, overrides),
    signingSecrets: secrets ?? [{ secret, validUntil: null }],
    status: 'active',
  });
  return { keyId, secret };
}

function secretKey(label: string, overrides: Partial<ApiKeyPrincipal> = {}): { keyId: string; secret: string } {
  const keyId = `ak_${label}_${randomUUID().slice(0, 8)}`;
  const secret = `sk_test_${randomUUID().replace(/-/g, '')}`;
  identity.secretKeys.set(secret, {
    secret,
    principal: principal(keyId, { authMode: 'secret', restrictions: restrictions(), ...overrides }),
    status: 'active',
  });
  return { keyId, secret };
}

interface Signed {
  keyId: string;
  secret: string;
  path?: string;
  method?: string;
  body?: string;
  offsetMs?: number;
  nonce?: string;
  timestamp?: string;
  actor?: { type: string; id: string };
  idempotencyKey?: string;
}

function signedHeaders(options: Signed): Record<string, string> {
  return signRequest({
    keyId: options.keyId,
    signingSecret: options.secret,
    timestamp: options.timestamp ?? new Date(NOW_MS + (options.offsetMs ?? 0)).toISOString(),
    nonce: options.nonce ?? randomUUID(),
    method: options.method ?? 'GET',
    pathWithQuery: options.path ?? '/v1/journal',
    body: options.body ?? '',
    idempotencyKey: options.idempotencyKey,
    actorType: options.actor?.type,
    actorId: options.actor?.id,
  });
}

/** node:http, because fetch sends no body with GET and the only tenant routes yet are GETs. */
async function send(
  client: GatewayClient,
  options: { path?: string; method?: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: ResponseBody }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const request = http.request(
      { host: '127.0.0.1', port: client.gateway.port, method: options.method ?? 'GET', path: options.path ?? '/v1/journal', headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponseBody }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

async function sendSigned(client: GatewayClient, options: Signed): Promise<{ status: number; body: ResponseBody }> {
  return send(client, { path: options.path, method: options.method, headers: signedHeaders(options), body: options.body });
}

async function publishChange(keyId: string, change: ApiKeyChangedV1['change']): Promise<void> {
  const message: ApiKeyChangedV1 = {
    type: 'api_key.changed.v1',
    messageId: randomUUID(),
    keyId,
    tenantId: TENANT,
    change,
    occurredAt: new Date().toISOString(),
  };
  await publisher.publish(
    TOPOLOGY.identityEvents.exchange,
    TOPOLOGY.identityEvents.apiKeyChangedRoutingKey,
    Buffer.from(JSON.stringify(message)),
  );
}

beforeAll(async () => {
  ({ databaseUrl, amqpUrl } = await prepareGatewayInfrastructure('gateway_keys'));
  identity = await startIdentityPeer();
  upstream = await startUpstreamPeer();
  const env = gatewayEnv({ identity: identity.url, ledger: upstream.url, payments: upstream.url, treasury: upstream.url });
  first = await startGateway(env, { nowMs: () => NOW_MS });
  second = await startGateway(env, { nowMs: () => NOW_MS });
  publisher = new Broker({
    url: amqpUrl,
    name: 'gateway-tests-identity',
    logger: createLogger({ service: 'gateway-tests', level: 'silent' }),
    topology: declareIdentityEvents,
  });
  await publisher.start();
  db = createDb(databaseUrl);
});

afterAll(async () => {
  await db.destroy();
  await publisher.close();
  await first.gateway.close();
  await second.gateway.close();
  await upstream.close();
  await identity.close();
});

describe('signed requests', () => {
  it('forwards a request signed with signRequest(), its key and actor in the internal token', async () => {
    const key = hmacKey('ok');
    const response = await sendSigned(first, {
      ...key,
      path: '/v1/journal?limit=5&cursor=a%2Fb',
      actor: { type: 'team_member', id: 'usr_1' },
      idempotencyKey: 'idem-1',
    });
    expect(response.status).toBe(200);
    expect(response.body.claims).toMatchObject({
      surface: 'tenant',
      tenantId: TENANT,
      environment: 'test',
      keyId: key.keyId,
      scopes: ['ledger:read'],
      actor: { type: 'team_member', id: 'usr_1' },
    });
    expect(response.body.query).toBe('limit=5&cursor=a%2Fb');
    expect(response.body.headers).not.toHaveProperty('x-service-signature');
  });

  it('marks the principal requestSignatureVerified', async () => {
    const key = hmacKey('marked');
    const keys = new KeyCache(
      createIdentityKeysClient({
        identityUrl: identity.url,
        internalTokenSecret: INTERNAL_SECRET,
        timeoutMs: 2000,
        logger: createLogger({ service: 'gateway-tests', level: 'silent' }),
      }),
      0,
    );
    const authenticator = signedRequestAuthenticator(signedRequestResolver({ keys, nonces: createNonceStore(db), nowMs: () => NOW_MS }));
    const headers = Object.fromEntries(Object.entries(signedHeaders(key)).map(([name, value]) => [name.toLowerCase(), value]));
    const principal = await authenticator({
      method: 'GET',
      pathWithQuery: '/v1/journal',
      header: (name) => headers[name.toLowerCase()],
      rawBody: Buffer.alloc(0),
      remoteAddress: '127.0.0.1',
    });
    expect(principal).toMatchObject({ authMode: 'hmac', keyId: key.keyId, requestSignatureVerified: true });
  });

  it.each(['X-Service-Timestamp', 'X-Service-Nonce', 'X-Service-Content-SHA256', 'X-Service-Signature'])(
    'refuses a request without %s with 401 MISSING_REQUEST_SIGNATURE_HEADER naming it',
    async (header) => {
      const key = hmacKey('missing');
      const { [header]: _left, ...headers } = signedHeaders(key);
      const response = await send(first, { headers });
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({ code: 'MISSING_REQUEST_SIGNATURE_HEADER', details: { header: header.toLowerCase() } });
    },
  );

  it('refuses an unknown key, the id of a secret key and a key id identity could not have issued with 401 INVALID_API_KEY', async () => {
    expect((await sendSigned(first, { keyId: 'ak_nobody', secret: 'ss_whatever' })).body.error?.code).toBe('INVALID_API_KEY');
    const before = identity.calls.signingMaterial;
    for (const keyId of ['..', 'ak_1/../../x', 'k'.repeat(129)]) {
      expect((await sendSigned(first, { keyId, secret: 'ss_whatever' })).body.error?.code).toBe('INVALID_API_KEY');
    }
    expect(identity.calls.signingMaterial).toBe(before);
    const secret = secretKey('not_hmac');
    expect((await sendSigned(first, { keyId: secret.keyId, secret: secret.secret })).body.error?.code).toBe('INVALID_API_KEY');
  });

  it('refuses a revoked key with 401 API_KEY_REVOKED and an expired one with 401 API_KEY_EXPIRED, before looking at the timestamp', async () => {
    const revoked = hmacKey('revoked');
    identity.hmacKeys.get(revoked.keyId)!.status = 'revoked';
    const expired = hmacKey('expired');
    identity.hmacKeys.get(expired.keyId)!.status = 'expired';
    const revokedResponse = await sendSigned(first, { ...revoked, offsetMs: -3_600_000 });
    expect(revokedResponse.status).toBe(401);
    expect(revokedResponse.body.error?.code).toBe('API_KEY_REVOKED');
    expect((await sendSigned(first, { ...expired, offsetMs: -3_600_000 })).body.error?.code).toBe('API_KEY_EXPIRED');
  });

  it.each([
    ['299 s behind', -299_000],
    ['299 s ahead', 299_000],
    ['exactly 300 s ahead', 300_000],
  ])('accepts a timestamp %s of the server clock', async (_label, offsetMs) => {
    const key = hmacKey('fresh');
    expect((await sendSigned(first, { ...key, offsetMs })).status).toBe(200);
  });

  it.each([
    ['301 s behind', -301_000],
    ['301 s ahead', 301_000],
  ])('refuses a timestamp %s with 401 STALE_REQUEST_TIMESTAMP', async (_label, offsetMs) => {
    const key = hmacKey('stale');
    const response = await sendSigned(first, { ...key, offsetMs });
    expect(response.status).toBe(401);
    expect(response.body.error?.code).toBe('STALE_REQUEST_TIMESTAMP');
  });

  it('takes an unparseable timestamp as stale', async () => {
    const key = hmacKey('garbled');
    for (const timestamp of ['yesterday', String(NOW_MS / 1000), '2026-11-22 12:00:00']) {
      expect((await sendSigned(first, { ...key, timestamp })).body.error?.code).toBe('STALE_REQUEST_TIMESTAMP');
    }
  });

  it('hashes the raw body bytes: 100.10 signed as sent passes, signed re-serialized it is INVALID_REQUEST_CONTENT_HASH', async () => {
    const key = hmacKey('body');
    const body = '{"amount": 100.10, "note":"as sent"}';
    expect((await sendSigned(first, { ...key, body })).status).toBe(200);
    const reserialized = JSON.stringify(JSON.parse(body) as unknown);
    expect(reserialized).toContain('100.1,');
    const headers = signedHeaders({ ...key, body: reserialized });
    const response = await send(first, { headers, body });
    expect(response.status).toBe(401);
    expect(response.body.error?.code).toBe('INVALID_REQUEST_CONTENT_HASH');
  });

  it('checks the content hash before the signature', async () => {
    const key = hmacKey('hash_first');
    const headers = { ...signedHeaders({ ...key, body: '{"a":1}' }), 'X-Service-Signature': 'v1=:forged:' };
    expect((await send(first, { headers, body: '{"a":2}' })).body.error?.code).toBe('INVALID_REQUEST_CONTENT_HASH');
  });

  it('refuses a wrong secret, another path or a changed actor header with 401 INVALID_REQUEST_SIGNATURE', async () => {
    const key = hmacKey('forged');
    const wrongSecret = await sendSigned(first, { keyId: key.keyId, secret: 'ss_not_the_secret' });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error?.code).toBe('INVALID_REQUEST_SIGNATURE');
    const otherPath = await send(first, { path: '/v1/journal?limit=100', headers: signedHeaders({ ...key, path: '/v1/journal?limit=1' }) });
    expect(otherPath.body.error?.code).toBe('INVALID_REQUEST_SIGNATURE');
    const otherActor = await send(first, {
      headers: { ...signedHeaders({ ...key, actor: { type: 'team_member', id: 'usr_1' } }), 'X-Service-Actor-Id': 'usr_2' },
    });
    expect(otherActor.body.error?.code).toBe('INVALID_REQUEST_SIGNATURE');
  });

  it('verifies a query signed in any order: the canonical form sorts it', async () => {
    const key = hmacKey('query');
    const headers = signedHeaders({ ...key, path: '/v1/journal?limit=5&cursor=b' });
    expect((await send(first, { path: '/v1/journal?cursor=b&limit=5', headers })).status).toBe(200);
  });

  it('refuses a replayed nonce with 401 REQUEST_NONCE_REPLAYED, also on a second instance sharing the database', async () => {
    const key = hmacKey('replay');
    const headers = signedHeaders(key);
    expect((await send(first, { headers })).status).toBe(200);
    const replayedElsewhere = await send(second, { headers });
    expect(replayedElsewhere.status).toBe(401);
    expect(replayedElsewhere.body.error?.code).toBe('REQUEST_NONCE_REPLAYED');
    expect((await send(first, { headers })).body.error?.code).toBe('REQUEST_NONCE_REPLAYED');
  });

  it('remembers nonces per key: another key may use the same nonce', async () => {
    const nonce = randomUUID();
    expect((await sendSigned(first, { ...hmacKey('nonce_a'), nonce })).status).toBe(200);
    expect((await sendSigned(second, { ...hmacKey('nonce_b'), nonce })).status).toBe(200);
  });

  it('does not burn the nonce of a request whose signature failed', async () => {
    const key = hmacKey('unburnt');
    const nonce = randomUUID();
    expect((await sendSigned(first, { keyId: key.keyId, secret: 'ss_wrong', nonce })).body.error?.code).toBe('INVALID_REQUEST_SIGNATURE');
    expect((await sendSigned(second, { ...key, offsetMs: 400_000, nonce })).body.error?.code).toBe('STALE_REQUEST_TIMESTAMP');
    expect((await sendSigned(first, { ...key, nonce })).status).toBe(200);
  });

  it('verifies both the new and the old secret while a rotation overlaps, and not the old one after it', async () => {
    const keyId = `ak_rotated_${randomUUID().slice(0, 8)}`;
    identity.hmacKeys.set(keyId, {
      principal: principal(keyId),
      status: 'active',
      signingSecrets: [
        { secret: 'ss_new_secret', validUntil: null },
        { secret: 'ss_old_secret', validUntil: new Date(NOW_MS + 60_000).toISOString() },
      ],
    });
    expect((await sendSigned(first, { keyId, secret: 'ss_new_secret' })).status).toBe(200);
    expect((await sendSigned(first, { keyId, secret: 'ss_old_secret' })).status).toBe(200);

    const endedKeyId = `ak_rotated_${randomUUID().slice(0, 8)}`;
    identity.hmacKeys.set(endedKeyId, {
      principal: principal(endedKeyId),
      status: 'active',
      signingSecrets: [
        { secret: 'ss_new_secret', validUntil: null },
        // Its overlap ended by our clock, though identity (or a cache) still lists it.
        { secret: 'ss_old_secret', validUntil: new Date(NOW_MS - 1_000).toISOString() },
      ],
    });
    expect((await sendSigned(first, { keyId: endedKeyId, secret: 'ss_old_secret' })).body.error?.code).toBe('INVALID_REQUEST_SIGNATURE');
    expect((await sendSigned(first, { keyId: endedKeyId, secret: 'ss_new_secret' })).status).toBe(200);
  });

  it('refuses a key that requires actor headers without both with 403 ACTOR_HEADERS_REQUIRED', async () => {
    const key = hmacKey('actors', { restrictions: restrictions({ requireRequestSigning: true, requireActorHeaders: true }) });
    const without = await sendSigned(first, key);
    expect(without.status).toBe(403);
    expect(without.body.error?.code).toBe('ACTOR_HEADERS_REQUIRED');
    const half = await send(first, { headers: { ...signedHeaders(key), 'X-Service-Actor-Type': 'team_member' } });
    expect(half.body.error?.code).toBe('INVALID_REQUEST_SIGNATURE');
    const both = await sendSigned(first, { ...key, actor: { type: 'team_member', id: 'usr_9' } });
    expect(both.status).toBe(200);
    expect(both.body.claims?.actor).toEqual({ type: 'team_member', id: 'usr_9' });
  });

  it('refuses a source outside the key allowedIps with 403 IP_NOT_ALLOWED, and lets one inside through', async () => {
    const outside = hmacKey('ip_out', {
      restrictions: restrictions({ requireRequestSigning: true, allowedIps: ['10.0.0.0/8', '2001:db8::/32'] }),
    });
    const refused = await sendSigned(first, outside);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('IP_NOT_ALLOWED');
    const inside = hmacKey('ip_in', {
      restrictions: restrictions({ requireRequestSigning: true, allowedIps: ['10.0.0.0/8', '127.0.0.0/8'] }),
    });
    expect((await sendSigned(first, inside)).status).toBe(200);
  });

  it('drops cached signing material when api_key.changed.v1 says the key was revoked', async () => {
    const key = hmacKey('revoked_later');
    expect((await sendSigned(first, key)).status).toBe(200);
    identity.hmacKeys.get(key.keyId)!.status = 'revoked';
    await publishChange(key.keyId, 'revoked');
    const code = await waitFor(
      async () => {
        const response = await sendSigned(first, key);
        return response.status === 401 ? response.body.error?.code : undefined;
      },
      { what: 'the revoked key to be refused' },
    );
    expect(code).toBe('API_KEY_REVOKED');
  });
});

describe('secret keys (X-API-Key)', () => {
  it('forwards a known key with its principal, asking identity once within the cache TTL', async () => {
    const key = secretKey('cached', { scopes: ['ledger:read', 'wallets:read'] });
    const before = identity.calls.authenticateSecret;
    for (let round = 0; round < 3; round += 1) {
      const response = await read(
        await fetch(`${first.publicUrl}/v1/journal`, {
          headers: { 'X-API-Key': key.secret, 'X-Service-Actor-Type': 'api_client', 'X-Service-Actor-Id': 'svc_1' },
        }),
      );
      expect(response.status).toBe(200);
      expect(response.body.claims).toMatchObject({
        surface: 'tenant',
        tenantId: TENANT,
        keyId: key.keyId,
        scopes: ['ledger:read', 'wallets:read'],
        actor: { type: 'api_client', id: 'svc_1' },
      });
    }
    expect(identity.calls.authenticateSecret - before).toBe(1);
  });

  it('refuses a revoked key with 401 API_KEY_REVOKED straight after api_key.changed.v1, though it was cached', async () => {
    const key = secretKey('revoke_me');
    const call = async () => read(await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': key.secret } }));
    expect((await call()).status).toBe(200);
    identity.secretKeys.get(key.secret)!.status = 'revoked';
    // Still cached: identity is not asked again within the TTL.
    expect((await call()).status).toBe(200);
    // A message that does not parse is dropped without stopping the consumer.
    await publisher.publish(TOPOLOGY.identityEvents.exchange, TOPOLOGY.identityEvents.apiKeyChangedRoutingKey, Buffer.from('not json'));
    await publishChange(key.keyId, 'revoked');
    const refused = await waitFor(
      async () => {
        const response = await call();
        return response.status === 401 ? response : undefined;
      },
      { what: 'the revoked key to be refused' },
    );
    expect(refused.body.error?.code).toBe('API_KEY_REVOKED');
  });

  it('passes on identity refusals: INVALID_API_KEY for an unknown key, API_KEY_EXPIRED for an expired one', async () => {
    const tooLong = await read(await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': `sk_test_${'y'.repeat(300)}` } }));
    expect(tooLong.body.error?.code).toBe('INVALID_API_KEY');
    const unknown = await read(await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': `sk_test_${'z'.repeat(32)}` } }));
    expect(unknown.status).toBe(401);
    expect(unknown.body.error?.code).toBe('INVALID_API_KEY');
    const key = secretKey('expired');
    identity.secretKeys.get(key.secret)!.status = 'expired';
    expect((await read(await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': key.secret } }))).body.error?.code).toBe(
      'API_KEY_EXPIRED',
    );
  });

  it('refuses a key that requires request signing with 401 INVALID_API_KEY', async () => {
    const key = secretKey('must_sign', { restrictions: restrictions({ requireRequestSigning: true }) });
    const response = await read(await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': key.secret } }));
    expect(response.status).toBe(401);
    expect(response.body.error?.code).toBe('INVALID_API_KEY');
  });

  it('applies allowedIps and requireActorHeaders to secret keys too', async () => {
    const outside = secretKey('ip', { restrictions: restrictions({ allowedIps: ['192.0.2.0/24'] }) });
    expect((await read(await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': outside.secret } }))).body.error?.code).toBe(
      'IP_NOT_ALLOWED',
    );
    const actors = secretKey('actors', { restrictions: restrictions({ requireActorHeaders: true }) });
    const without = await read(
      await fetch(`${first.publicUrl}/v1/journal`, { headers: { 'X-API-Key': actors.secret, 'X-Service-Actor-Id': 'usr_1' } }),
    );
    expect(without.status).toBe(403);
    expect(without.body.error?.code).toBe('ACTOR_HEADERS_REQUIRED');
    expect(
      (
        await fetch(`${first.publicUrl}/v1/journal`, {
          headers: { 'X-API-Key': actors.secret, 'X-Service-Actor-Type': 'team_member', 'X-Service-Actor-Id': 'usr_1' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('IP allowlists', () => {
  it('matches IPv4, IPv4-mapped IPv6 and IPv6 sources against CIDRs and single addresses', () => {
    expect(isAddressAllowed(['10.0.0.0/8'], '10.1.2.3')).toBe(true);
    expect(isAddressAllowed(['10.0.0.0/8'], '::ffff:10.1.2.3')).toBe(true);
    expect(isAddressAllowed(['10.0.0.0/8'], '11.0.0.1')).toBe(false);
    expect(isAddressAllowed(['203.0.113.7'], '203.0.113.7')).toBe(true);
    expect(isAddressAllowed(['2001:db8::/32'], '2001:db8:1::5')).toBe(true);
    expect(isAddressAllowed(['2001:db8::/32'], '2001:db9::5')).toBe(false);
    expect(isAddressAllowed(['10.0.0.0/8'], undefined)).toBe(false);
  });
});

describe('the request nonce store', () => {
  it('counts a first use once, lets an expired record be used again and purges only expired records', async () => {
    const nonces = createNonceStore(db);
    const keyId = `ak_store_${randomUUID().slice(0, 8)}`;
    const now = new Date(NOW_MS);
    expect(await nonces.recordFirstUse(keyId, 'n1', now, new Date(NOW_MS + 600_000))).toBe(true);
    expect(await nonces.recordFirstUse(keyId, 'n1', now, new Date(NOW_MS + 600_000))).toBe(false);
    expect(await nonces.recordFirstUse(keyId, 'n2', now, new Date(NOW_MS + 1_000))).toBe(true);
    const later = new Date(NOW_MS + 2_000);
    expect(await nonces.recordFirstUse(keyId, 'n2', later, new Date(later.getTime() + 600_000))).toBe(true);
    await nonces.recordFirstUse(keyId, 'n3', now, new Date(NOW_MS + 1_000));
    expect(await purgeRule(db, nonceRetentionRule(60_000, NONCE_RETENTION_MS), { nowMs: later.getTime() })).toBeGreaterThanOrEqual(1);
    const left = (await db('request_nonces').where({ key_id: keyId }).orderBy('nonce').select('nonce')) as Array<{ nonce: string }>;
    expect(left.map((row) => row.nonce)).toEqual(['n1', 'n2']);
  });

  it('counts one use of a nonce sent many times at once, and each of many different nonces once, in shared statements', async () => {
    const nonces = createNonceStore(db);
    const keyId = `ak_batch_${randomUUID().slice(0, 8)}`;
    const now = new Date(NOW_MS);
    const expiresAt = new Date(NOW_MS + 600_000);
    const same = await Promise.all(Array.from({ length: 20 }, () => nonces.recordFirstUse(keyId, 'once', now, expiresAt)));
    expect(same.filter(Boolean)).toHaveLength(1);
    const different = await Promise.all(
      Array.from({ length: 20 }, (_unused, index) => nonces.recordFirstUse(keyId, `n-${index}`, now, expiresAt)),
    );
    expect(different.every(Boolean)).toBe(true);
    const replays = await Promise.all(
      Array.from({ length: 20 }, (_unused, index) => nonces.recordFirstUse(keyId, `n-${index}`, now, expiresAt)),
    );
    expect(replays.some(Boolean)).toBe(false);
  });
});

describe('identity unreachable', () => {
  it('answers 503 SERVICE_UNAVAILABLE, not a key refusal', async () => {
    const keys = new KeyCache(
      createIdentityKeysClient({
        identityUrl: 'http://127.0.0.1:9',
        internalTokenSecret: INTERNAL_SECRET,
        timeoutMs: 1000,
        logger: createLogger({ service: 'gateway-tests', level: 'silent' }),
      }),
      30_000,
    );
    await expect(keys.principalForSecret('sk_test_x')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(keys.signingMaterial('ak_x')).rejects.toBeInstanceOf(AppError);
  });
});
