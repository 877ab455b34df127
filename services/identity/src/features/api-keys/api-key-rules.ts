import { type ApiKeyRestrictions, type AuthMode, type Environment, hasScope } from '@wallet/contracts';
import { AppError, type InternalClaims } from '@wallet/kit';

/** Who manages a tenant's keys, and within which bounds. */
export interface KeyCaller {
  tenantId: string;
  claims: InternalClaims;
  /** The scopes the caller may hand on; null for the platform operator, who may do anything for the tenant. */
  scopes: readonly string[] | null;
  /** A key caller's own environment, the only one it sees and creates keys in; null: both (sessions, the operator). */
  environment: Environment | null;
}

/** A caller on the tenant surface. A key is bound to its environment; a dashboard session chooses. */
export function tenantKeyCaller(claims: InternalClaims, scope: { tenantId: string; environment: Environment }): KeyCaller {
  return {
    tenantId: scope.tenantId,
    claims,
    scopes: claims.scopes,
    environment: claims.authMode === 'session' ? null : scope.environment,
  };
}

export function systemKeyCaller(claims: InternalClaims, tenantId: string): KeyCaller {
  return { tenantId, claims, scopes: null, environment: null };
}

/** Refuses scopes the caller does not hold itself: a key could otherwise mint a stronger one. */
export function requireCoveredScopes(caller: KeyCaller, scopes: readonly string[], what: string): void {
  if (caller.scopes === null) return;
  const granted = caller.scopes;
  const uncovered = scopes.filter((scope) => !hasScope(granted, scope));
  if (uncovered.length > 0) {
    throw new AppError('SCOPE_ESCALATION', `${what} needs scopes the caller does not hold: ${uncovered.join(', ')}`, { scopes: uncovered });
  }
}

/** A key creates keys only in its own environment: a test key must not mint a live one. */
export function requireCreatableEnvironment(caller: KeyCaller, environment: Environment): void {
  if (caller.environment !== null && caller.environment !== environment) {
    throw new AppError('SCOPE_ESCALATION', `A ${caller.environment} key cannot create ${environment} keys`, {
      environment,
      callerEnvironment: caller.environment,
    });
  }
}

/** Whether the caller may see this key at all: another tenant's, or a key caller's other environment, does not exist for it. */
export function isVisibleTo(caller: KeyCaller, key: { tenantId: string; environment: Environment }): boolean {
  return key.tenantId === caller.tenantId && (caller.environment === null || caller.environment === key.environment);
}

export const DEFAULT_RESTRICTIONS: ApiKeyRestrictions = { requireRequestSigning: false, requireActorHeaders: false, allowedIps: null };

/**
 * The restrictions after a change: the fields named replace the current ones. Request signing
 * needs an hmac key; an hmac key authenticates only by signature, so it always requires it.
 */
export function resolveRestrictions(
  authMode: AuthMode,
  current: ApiKeyRestrictions,
  change: Partial<ApiKeyRestrictions> | undefined,
): ApiKeyRestrictions {
  const merged: ApiKeyRestrictions = {
    requireRequestSigning: change?.requireRequestSigning ?? current.requireRequestSigning,
    requireActorHeaders: change?.requireActorHeaders ?? current.requireActorHeaders,
    allowedIps: change?.allowedIps !== undefined ? change.allowedIps : current.allowedIps,
  };
  if (authMode === 'hmac') return { ...merged, requireRequestSigning: true };
  if (change?.requireRequestSigning === true) {
    throw new AppError('REQUEST_SIGNING_REQUIRES_HMAC', 'restrictions.requireRequestSigning needs a key with authMode hmac', {
      field: 'restrictions.requireRequestSigning',
    });
  }
  return merged;
}
