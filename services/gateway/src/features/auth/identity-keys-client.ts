import { randomUUID } from 'node:crypto';
import {
  type ApiKeyPrincipal,
  apiKeyPrincipalSchema,
  logoutResultSchema,
  type SessionPrincipal,
  sessionPrincipalSchema,
  type SigningMaterial,
  signingMaterialSchema,
} from '@wallet/contracts';
import { AppError, callInternal, type InternalAnswer, type InternalPeer, type Logger } from '@wallet/kit';
import { z } from 'zod';

/** The answers identity gives about a credential it will not vouch for; passed on to the client as they are. */
const KEY_REFUSALS = ['INVALID_API_KEY', 'API_KEY_REVOKED', 'API_KEY_EXPIRED', 'INVALID_SESSION'] as const;
const refusalSchema = z.object({ error: z.object({ code: z.enum(KEY_REFUSALS), message: z.string().optional() }) });

/** Identity's internal credential routes, called with a system internal token. */
export interface IdentityKeysClient {
  authenticateSecret(key: string): Promise<ApiKeyPrincipal>;
  signingMaterial(keyId: string): Promise<SigningMaterial>;
  authenticateSession(token: string): Promise<SessionPrincipal>;
  /** Revokes a session; one identity no longer knows is already ended. */
  endSession(token: string): Promise<void>;
}

export interface IdentityKeysClientOptions {
  identityUrl: string;
  internalTokenSecret: string;
  timeoutMs: number;
  logger: Logger;
}

/** Whatever went wrong between the gateway and identity, the client hears only that its credential cannot be checked now. */
function credentialsUnavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'Credentials cannot be checked right now');
}

export function createIdentityKeysClient(options: IdentityKeysClientOptions): IdentityKeysClient {
  const identity: InternalPeer = {
    name: 'identity',
    baseUrl: options.identityUrl,
    internalTokenSecret: options.internalTokenSecret,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
  };

  async function call<Schema extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    schema: Schema,
    body?: unknown,
  ): Promise<z.infer<Schema>> {
    let answer: InternalAnswer;
    try {
      answer = await callInternal(identity, {
        method,
        pathWithQuery: path,
        claims: { surface: 'system', tenantId: null, environment: null, scopes: ['*'] },
        // A lookup may serve many requests at once (and its answer is cached), so it is no one request's step.
        correlationId: `gateway-auth-${randomUUID()}`,
        ...(body === undefined ? {} : { body }),
      });
    } catch {
      throw credentialsUnavailable();
    }
    if (answer.status === 401) {
      const refusal = refusalSchema.safeParse(answer.body);
      if (refusal.success) throw new AppError(refusal.data.error.code, refusal.data.error.message ?? 'The API key is not valid');
    }
    const parsed = answer.status >= 200 && answer.status < 300 ? schema.safeParse(answer.body) : null;
    if (!parsed?.success) {
      // Anything but the contract (a refused internal token, a body of another shape) is our failure, not the client's key.
      options.logger.warn({ status: answer.status, path }, 'identity key lookup answered outside the contract');
      throw credentialsUnavailable();
    }
    return parsed.data as z.infer<Schema>;
  }

  return {
    authenticateSecret: (key) => call('POST', '/internal/v1/api-keys/authenticate-secret', apiKeyPrincipalSchema, { key }),
    signingMaterial: (keyId) => call('GET', `/internal/v1/api-keys/${encodeURIComponent(keyId)}/signing-material`, signingMaterialSchema),
    authenticateSession: (token) => call('POST', '/internal/v1/sessions/authenticate', sessionPrincipalSchema, { token }),
    endSession: async (token) => {
      try {
        await call('POST', '/v1/auth/logout', logoutResultSchema, { token });
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'INVALID_SESSION')) throw error;
      }
    },
  };
}
