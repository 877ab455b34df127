import type { Scope } from './http/api-keys';
import type { OrgRole } from './http/identity';

/**
 * Scope rules (docs/decisions/scopes.md). A pure function of the granted list, so the same
 * answer holds for keys, sessions and (later) the escalation check when keys are edited.
 */

/** Alternative names: a grant of the alias is a grant of the scope, and the other way round. */
const ALIASES: ReadonlyMap<string, string> = new Map([['wallet:transfer', 'transfers:create']]);

/**
 * `ledger:read` covers every tenant GET. Scopes are checked by name, not by method, so the
 * umbrella covers the scopes whose routes are all reads. `*:manage` scopes are left out even
 * where they also guard a GET (api keys, team), because they guard writes too.
 */
const READ_SCOPES: ReadonlySet<string> = new Set([
  'wallets:read',
  'payouts:read',
  'treasury:read',
  'fees:read',
  'analytics:read',
  'request_logs:read',
  'audit:read',
  'events:read',
  'team:read',
  'journal:read',
  'ledger:read',
]);

/**
 * `ledger:write` covers every money-moving POST: wallets, transfers and their reversals, bank slips, payouts, float
 * deposits and withdrawals. Checker scopes (deposits:verify, payouts:approve, treasury:approve)
 * stay out: an umbrella for makers must not also make its holder a checker.
 */
const MONEY_MOVING_SCOPES: ReadonlySet<string> = new Set([
  'wallets:create',
  'transfers:create',
  'wallet:deposit',
  'payouts:create',
  'treasury:write',
  'ledger:write',
]);

const UMBRELLAS: ReadonlyMap<string, (required: string) => boolean> = new Map([
  ['ledger:read', (required: string) => READ_SCOPES.has(required)],
  ['ledger:write', (required: string) => MONEY_MOVING_SCOPES.has(required)],
  // Everything a tenant can do; system routes never ask for a scope, so nothing leaks there.
  ['tenant:manage', () => true],
]);

function canonicalScope(scope: string): string {
  return ALIASES.get(scope) ?? scope;
}

export function hasScope(grantedScopes: readonly string[], requiredScope: string): boolean {
  const required = canonicalScope(requiredScope);
  return grantedScopes.some((grantedScope) => {
    const granted = canonicalScope(grantedScope);
    return granted === required || (UMBRELLAS.get(granted)?.(required) ?? false);
  });
}

/** A principal may hand on only what it holds: every requested scope must be covered by a granted one. */
export function coversScopes(grantedScopes: readonly string[], requestedScopes: readonly string[]): boolean {
  return requestedScopes.every((scope) => hasScope(grantedScopes, scope));
}

/** Team roles as scopes (docs/decisions/scopes.md). */
export const ROLE_SCOPES = {
  'org-admin': ['tenant:manage'],
  // Roles name their reads one by one: the ledger:read umbrella would also open the audit trail,
  // the request logs and the event log to roles that have no business there.
  operator: [
    'wallets:read',
    'wallets:create',
    'wallets:manage',
    'transfers:create',
    'wallet:deposit',
    'deposits:verify',
    'payouts:create',
    'payouts:read',
    'treasury:read',
    'treasury:write',
    'fees:read',
    'analytics:read',
    'journal:read',
    'team:read',
  ],
  approver: [
    'payouts:read',
    'payouts:approve',
    'treasury:read',
    'treasury:approve',
    'wallets:read',
    'analytics:read',
    'journal:read',
    'team:read',
  ],
  developer: ['api_keys:manage', 'webhooks:manage', 'events:read', 'request_logs:read', 'wallets:read', 'journal:read', 'team:read'],
  'finance-viewer': [
    'wallets:read',
    'payouts:read',
    'treasury:read',
    'fees:read',
    'analytics:read',
    'request_logs:read',
    'audit:read',
    'ledger:read',
  ],
  observer: ['wallets:read', 'payouts:read', 'treasury:read', 'analytics:read', 'team:read'],
  user: [],
} as const satisfies Record<OrgRole, readonly Scope[]>;

export function scopesOfRole(role: OrgRole): Scope[] {
  return [...ROLE_SCOPES[role]];
}
