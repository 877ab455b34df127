import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { environmentSchema } from '@wallet/contracts';

export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
/** Short-lived: a token only has to outlive one hop from the gateway to a service. */
export const INTERNAL_TOKEN_TTL_SECONDS = 60;

export const internalClaimsSchema = z.object({
  /** `system` for the platform operator, `tenant` for a tenant's key or session, `public` for an anonymous call. */
  surface: z.enum(['system', 'tenant', 'public']),
  /** How the caller authenticated: a session may do what a key of the same scopes may not (choose an environment). */
  authMode: z.enum(['system', 'secret', 'hmac', 'session', 'none']).optional(),
  tenantId: z.string().nullable(),
  environment: environmentSchema.nullable(),
  keyId: z.string().nullable(),
  scopes: z.array(z.string()),
  actor: z.object({ type: z.string(), id: z.string() }).nullable(),
  correlationId: z.string(),
  exp: z.number().int(),
});
export type InternalClaims = z.infer<typeof internalClaimsSchema>;

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** `<base64url claims>.<base64url HMAC-SHA256>`: the gateway's word to a service. */
export function signInternalToken(secret: string, claims: Omit<InternalClaims, 'exp'>, nowMs = Date.now()): string {
  const full: InternalClaims = { ...claims, exp: Math.floor(nowMs / 1000) + INTERNAL_TOKEN_TTL_SECONDS };
  const payload = Buffer.from(JSON.stringify(full)).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

export function verifyInternalToken(secret: string, token: string, nowMs = Date.now()): InternalClaims | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const claims = internalClaimsSchema.safeParse(decoded);
  if (!claims.success || claims.data.exp < Math.floor(nowMs / 1000)) return null;
  return claims.data;
}
