import { coversScopes, hasScope, ORG_ROLES, type OrgRole, type Scope, SCOPES, scopesOfRole } from '@wallet/contracts';

/*
 * A member hands on only what it holds (identity refuses the rest with SCOPE_ESCALATION): the
 * forms offer only those roles and scopes, by the same scope rules the server applies.
 */

/** The roles the session may give, or change a member from: those whose every scope it holds. */
export function grantableRoles(scopes: readonly string[]): OrgRole[] {
  return ORG_ROLES.filter((role) => coversScopes(scopes, scopesOfRole(role)));
}

/** The scopes the session may put on an API key. */
export function grantableScopes(scopes: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => hasScope(scopes, scope));
}
