import type { AddressInfo } from 'node:net';
import type { ApiKeyPrincipal, ApiKeyRestrictions } from '@wallet/contracts';
import { closeServer, listen, verifyInternalToken } from '@wallet/kit';
import express from 'express';
import { INTERNAL_SECRET } from './support';

export type KeyStatus = 'active' | 'revoked' | 'expired';

export interface SecretKeyRow {
  secret: string;
  principal: ApiKeyPrincipal;
  status: KeyStatus;
}

export interface HmacKeyRow {
  principal: ApiKeyPrincipal;
  signingSecrets: Array<{ secret: string; validUntil: string | null }>;
  status: KeyStatus;
}

/**
 * A real HTTP peer for identity's two internal key routes, over a fixed in-test key table.
 * It stands for the HTTP contract only: it checks the system internal token and answers
 * exactly the statuses and codes identity answers.
 */
export interface IdentityPeer {
  url: string;
  secretKeys: Map<string, SecretKeyRow>;
  hmacKeys: Map<string, HmacKeyRow>;
  /** How many times each route was called: proves what the gateway cached. */
  calls: { authenticateSecret: number; signingMaterial: number };
  close(): Promise<void>;
}

const REFUSALS = { revoked: 'API_KEY_REVOKED', expired: 'API_KEY_EXPIRED' } as const;

export function restrictions(overrides: Partial<ApiKeyRestrictions> = {}): ApiKeyRestrictions {
  return { requireRequestSigning: false, requireActorHeaders: false, allowedIps: null, ...overrides };
}

export async function startIdentityPeer(): Promise<IdentityPeer> {
  const secretKeys = new Map<string, SecretKeyRow>();
  const hmacKeys = new Map<string, HmacKeyRow>();
  const calls = { authenticateSecret: 0, signingMaterial: 0 };
  const app = express();
  app.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  app.use((request, response, next) => {
    const claims = verifyInternalToken(INTERNAL_SECRET, request.get('x-internal-token') ?? '');
    if (claims?.surface !== 'system') {
      response
        .status(401)
        .json({ error: { code: 'INVALID_INTERNAL_TOKEN', message: 'a system internal token is required', correlationId: 'peer' } });
      return;
    }
    next();
  });
  const refuse = (response: express.Response, code: string) =>
    response.status(401).json({ error: { code, message: code, correlationId: 'peer' } });
  app.post('/internal/v1/api-keys/authenticate-secret', express.json(), (request, response) => {
    calls.authenticateSecret += 1;
    const row = secretKeys.get(String((request.body as { key?: unknown }).key));
    if (!row) return refuse(response, 'INVALID_API_KEY');
    if (row.status !== 'active') return refuse(response, REFUSALS[row.status]);
    response.json(row.principal);
  });
  app.get('/internal/v1/api-keys/:keyId/signing-material', (request, response) => {
    calls.signingMaterial += 1;
    const row = hmacKeys.get(request.params.keyId);
    if (!row) return refuse(response, 'INVALID_API_KEY');
    if (row.status !== 'active') return refuse(response, REFUSALS[row.status]);
    response.json({ principal: row.principal, signingSecrets: row.signingSecrets });
  });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secretKeys,
    hmacKeys,
    calls,
    close: () => closeServer(server),
  };
}
