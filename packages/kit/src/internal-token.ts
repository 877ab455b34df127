import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { environmentSchema } from '@wallet/contracts/common';

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
  exp: z.number().int(),
});
export type InternalClaims = z.infer<typeof internalClaimsSchema>;

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/**
 * `<base64url claims>.<base64url HMAC-SHA256>`: the gateway's word to a service. The claims say
 * who calls, never which request: the correlation id travels in its own header, so one token
 * serves every request of a caller while it lives (internalTokenSigner).
 */
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

/** Cached tokens and claims at most, per signer or verifier: a bound, not a working size. */
const TOKEN_CACHE_ENTRIES_MAX = 10_000;

function principalKey(claims: Omit<InternalClaims, 'exp'>): string {
  const actor = claims.actor ? `${claims.actor.type}\u0000${claims.actor.id}` : '';
  return `${claims.surface}\u0000${claims.authMode ?? ''}\u0000${claims.tenantId ?? ''}\u0000${claims.environment ?? ''}\u0000${claims.keyId ?? ''}\u0000${actor}\u0000${claims.scopes.join(',')}`;
}

/**
 * signInternalToken for a caller's every request: a token is signed once per caller (the
 * same claims) and reused for the first half of its lifetime, so it still has half of it
 * left when a service checks it.
 */
export function internalTokenSigner(secret: string, nowMs: () => number = Date.now): (claims: Omit<InternalClaims, 'exp'>) => string {
  const tokens = new Map<string, { token: string; reuseUntilMs: number }>();
  return (claims) => {
    const key = principalKey(claims);
    const now = nowMs();
    const cached = tokens.get(key);
    if (cached && now < cached.reuseUntilMs) return cached.token;
    if (tokens.size >= TOKEN_CACHE_ENTRIES_MAX) tokens.clear();
    const token = signInternalToken(secret, claims, now);
    tokens.set(key, { token, reuseUntilMs: now + (INTERNAL_TOKEN_TTL_SECONDS * 1000) / 2 });
    return token;
  };
}

/**
 * verifyInternalToken that remembers the tokens it verified until they expire: a caller's
 * requests carry the same token (internalTokenSigner), and the signature, the decoding and
 * the schema are checked once for all of them.
 */
export function internalTokenVerifier(secret: string, nowMs: () => number = Date.now): (token: string) => InternalClaims | null {
  const verified = new Map<string, InternalClaims>();
  return (token) => {
    const now = nowMs();
    const cached = verified.get(token);
    if (cached) {
      if (cached.exp >= Math.floor(now / 1000)) return cached;
      verified.delete(token);
      return null;
    }
    const claims = verifyInternalToken(secret, token, now);
    if (claims) {
      if (verified.size >= TOKEN_CACHE_ENTRIES_MAX) verified.clear();
      verified.set(token, claims);
    }
    return claims;
  };
}
