import { randomUUID } from 'node:crypto';
import { type ApiKeyPrincipal, signRequest } from '@wallet/contracts';
import { startTcpProxy, type TcpProxy } from '@wallet/kit/testing';
import { type IdentityPeer, restrictions, startIdentityPeer } from './identity-peer';
import {
  closedPortUrl,
  gatewayEnv,
  type GatewayClient,
  prepareGatewayInfrastructure,
  read,
  startGateway,
  startUpstreamPeer,
  type UpstreamPeer,
} from './support';

/**
 * The gateway's own database (nonces, rate-limit buckets, request logs) behind a proxy the test
 * cuts, the real credential chain against an identity peer, and the echo upstream as a service.
 */
let identity: IdentityPeer;
let upstream: UpstreamPeer;
let proxy: TcpProxy;
let client: GatewayClient;

const TENANT = 'tn_outage';

function principal(keyId: string, authMode: ApiKeyPrincipal['authMode']): ApiKeyPrincipal {
  return {
    keyId,
    tenantId: TENANT,
    environment: 'test',
    authMode,
    scopes: ['ledger:read', 'request_logs:read'],
    restrictions: restrictions({ requireRequestSigning: authMode === 'hmac' }),
    validUntil: null,
  };
}

function secretKeyHeaders(): Record<string, string> {
  const keyId = `ak_${randomUUID().slice(0, 8)}`;
  const secret = `sk_test_${randomUUID().replace(/-/g, '')}`;
  identity.secretKeys.set(secret, { secret, principal: principal(keyId, 'secret'), status: 'active' });
  return { 'X-API-Key': secret };
}

function signedHeaders(pathWithQuery: string): Record<string, string> {
  const keyId = `ak_${randomUUID().slice(0, 8)}`;
  const signingSecret = `ss_${randomUUID()}`;
  identity.hmacKeys.set(keyId, {
    principal: principal(keyId, 'hmac'),
    signingSecrets: [{ secret: signingSecret, validUntil: null }],
    status: 'active',
  });
  return signRequest({
    keyId,
    signingSecret,
    timestamp: new Date().toISOString(),
    nonce: randomUUID(),
    method: 'GET',
    pathWithQuery,
    body: '',
  });
}

async function get(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; retryAfter: string | null; code: unknown }> {
  const answer = await read(await fetch(`${base}${path}`, { headers }));
  return { status: answer.status, retryAfter: answer.headers.get('retry-after'), code: answer.body.error?.code };
}

const unavailable = { status: 503, retryAfter: '2', code: 'SERVICE_UNAVAILABLE' };

beforeAll(async () => {
  const { databaseUrl } = await prepareGatewayInfrastructure('gateway_outage');
  proxy = await startTcpProxy(databaseUrl);
  identity = await startIdentityPeer();
  upstream = await startUpstreamPeer();
  client = await startGateway(
    gatewayEnv({ identity: identity.url, ledger: upstream.url }, { GATEWAY_DATABASE_URL: proxy.urlThrough(databaseUrl) }),
  );
});

afterAll(async () => {
  await client.gateway.close();
  await upstream.close();
  await identity.close();
  await proxy.close();
});

describe('the gateway when a dependency is away', () => {
  it('its own database cut: signed requests and request logs answer 503 with Retry-After, then are served again without a restart', async () => {
    const needingIt: Array<[string, () => Record<string, string>]> = [
      ['/v1/journal', () => signedHeaders('/v1/journal')],
      ['/v1/developer/request-logs', secretKeyHeaders],
    ];
    for (const [path, headers] of needingIt) expect((await get(client.publicUrl, path, headers())).status).toBe(200);
    for (const mode of ['refuse', 'starting-up'] as const) {
      await proxy.cut(mode);
      for (const [path, headers] of needingIt) expect(await get(client.publicUrl, path, headers())).toEqual(unavailable);
      // A secret key needs no nonce, and rate limits let a request through when their store is away.
      expect((await get(client.publicUrl, '/v1/journal', secretKeyHeaders())).status).toBe(200);
    }
    await proxy.reopen();
    for (const [path, headers] of needingIt) expect((await get(client.publicUrl, path, headers())).status).toBe(200);
  });

  it('a service it cannot reach: 503 with Retry-After', async () => {
    const away = await startGateway(gatewayEnv({ identity: identity.url, ledger: await closedPortUrl() }));
    try {
      expect(await get(away.publicUrl, '/v1/journal', secretKeyHeaders())).toEqual(unavailable);
    } finally {
      await away.gateway.close();
    }
  });
});
