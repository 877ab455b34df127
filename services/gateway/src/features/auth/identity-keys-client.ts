import { randomUUID } from 'node:crypto';
import { type ApiKeyPrincipal, apiKeyPrincipalSchema, type SessionPrincipal, sessionPrincipalSchema, type SigningMaterial, signingMaterialSchema } from '@wallet/contracts';
import { AppError, INTERNAL_TOKEN_HEADER, type Logger, signInternalToken } from '@wallet/kit';
import { z } from 'zod';

/** The answers identity gives about a credential it will not vouch for; passed on to the client as they are. */
const KEY_REFUSALS = ['INVALID_API_KEY', 'API_KEY_REVOKED', 'API_KEY_EXPIRED', 'INVALID_SESSION'] as const;
const refusalSchema = z.object({ error: z.object({ code: z.enum(KEY_REFUSALS), message: z.string().optional() }) });

/** Identity's internal credential routes, called with a system internal token. */
export interface IdentityKeysClient {
  authenticateSecret(key: string): Promise<ApiKeyPrincipal>;
  signingMaterial(keyId: string): Promise<SigningMaterial>;
  authenticateSession(token: string): Promise<SessionPrincipal>;
}

export interface IdentityKeysClientOptions {
  identityUrl: string;
  internalTokenSecret: string;
  timeoutMs: number;
  logger: Logger;
}

export function createIdentityKeysClient(options: IdentityKeysClientOptions): IdentityKeysClient {
  async function call<Schema extends z.ZodType>(method: 'GET' | 'POST', path: string, schema: Schema, body?: unknown): Promise<z.infer<Schema>> {
    const correlationId = `gateway-auth-${randomUUID()}`;
    const token = signInternalToken(options.internalTokenSecret, { surface: 'system', tenantId: null, environment: null, keyId: null, scopes: ['*'], actor: null });
    let response: Response;
    let payload: unknown;
    try {
      response = await fetch(new URL(path, options.identityUrl), {
        method,
        headers: { [INTERNAL_TOKEN_HEADER]: token, 'x-correlation-id': correlationId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      payload = await response.json();
    } catch (error) {
      options.logger.warn({ err: error, path }, 'identity key lookup failed');
      throw new AppError('SERVICE_UNAVAILABLE', 'Credentials cannot be checked right now');
    }
    if (response.status === 401) {
      const refusal = refusalSchema.safeParse(payload);
      if (refusal.success) throw new AppError(refusal.data.error.code, refusal.data.error.message ?? 'The API key is not valid');
    }
    const parsed = response.ok ? schema.safeParse(payload) : null;
    if (!parsed?.success) {
      // Anything but the contract (a 5xx, a refused internal token) is our failure, not the client's key.
      options.logger.warn({ status: response.status, path }, 'identity key lookup answered outside the contract');
      throw new AppError('SERVICE_UNAVAILABLE', 'Credentials cannot be checked right now');
    }
    return parsed.data as z.infer<Schema>;
  }

  return {
    authenticateSecret: (key) => call('POST', '/internal/v1/api-keys/authenticate-secret', apiKeyPrincipalSchema, { key }),
    signingMaterial: (keyId) => call('GET', `/internal/v1/api-keys/${encodeURIComponent(keyId)}/signing-material`, signingMaterialSchema),
    authenticateSession: (token) => call('POST', '/internal/v1/sessions/authenticate', sessionPrincipalSchema, { token }),
  };
}
