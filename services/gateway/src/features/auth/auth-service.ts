import { hasScope, type RouteContract } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { authenticate } from './authenticators';
import type { Authenticator, IncomingCall, Principal } from './principal';

/**
 * A refusal of a caller whose credential checked out (scope, actor binding): the request log
 * still names who it was, so the tenant sees its own refused calls.
 */
export class AuthorizationRefused extends AppError {
  constructor(
    readonly principal: Principal,
    refusal: AppError,
  ) {
    super(refusal.code, refusal.message, refusal.details);
  }
}

export interface AuthService {
  /** Who may make this call on this route, or an AppError (401, 403) saying why not. */
  authorize(route: RouteContract, call: IncomingCall): Promise<Principal>;
}

/** Body fields that name who acts (docs/decisions/authentication.md, actor binding). */
const BODY_ACTOR_FIELDS = ['actorId', 'requestedBy'] as const;

function bodyObject(rawBody: Buffer): Record<string, unknown> | null {
  if (rawBody.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * When the caller named its actor (actor headers, or the member of a session), a body that
 * names an actor must name the same one: a key bound to one operator cannot approve as another.
 */
function bindBodyActor(principal: Principal, call: IncomingCall): void {
  if (!principal.actor) return;
  const body = bodyObject(call.rawBody);
  if (!body) return;
  for (const field of BODY_ACTOR_FIELDS) {
    const named = body[field];
    if (named !== undefined && named !== principal.actor.id) {
      throw new AppError('ACTOR_MISMATCH', `The body's ${field} must be the actor this request is made as`, {
        field,
        actorId: principal.actor.id,
      });
    }
  }
}

function authorizeTenantCall(route: RouteContract, principal: Principal, call: IncomingCall): void {
  bindBodyActor(principal, call);
  // Deny by default: a tenant route that declares no scope (the types forbid it, a cast could not) opens to nobody.
  const required = (route as { scope?: unknown }).scope;
  if (typeof required !== 'string' || required === '')
    throw new AppError('INSUFFICIENT_SCOPE', 'This route grants access to no scope', { requiredScope: null });
  if (!hasScope(principal.scopes, required))
    throw new AppError('INSUFFICIENT_SCOPE', `This route needs the ${required} scope`, { requiredScope: required });
}

/** Who calls a public route: nobody in particular, with no tenant and no scope. */
export const ANONYMOUS_PRINCIPAL: Readonly<Principal> = Object.freeze({
  surface: 'public',
  authMode: 'none',
  tenantId: null,
  environment: null,
  keyId: null,
  scopes: [],
  actor: null,
});

export function createAuthService(chains: { system: readonly Authenticator[]; tenant: readonly Authenticator[] }): AuthService {
  return {
    async authorize(route, call) {
      if (route.surface === 'public') return { ...ANONYMOUS_PRINCIPAL, scopes: [] };
      // Each surface has its own chain: the system key opens no tenant route, a tenant key no system route.
      const principal = await authenticate(route.surface === 'system' ? chains.system : chains.tenant, call);
      if (principal.surface !== route.surface) {
        throw new Error(`an authenticator of the ${route.surface} chain returned a ${principal.surface} principal`);
      }
      if (route.surface === 'tenant') {
        try {
          authorizeTenantCall(route, principal, call);
        } catch (error) {
          throw error instanceof AppError ? new AuthorizationRefused(principal, error) : error;
        }
      }
      return principal;
    },
  };
}
