import { hasScope, type RouteContract } from '@wallet/contracts';

/**
 * Whether the session's scopes allow a route, by the route's declared scope and the contracts'
 * scope rules (umbrellas, aliases): the dashboard hides what the server would refuse anyway.
 * Public routes need none; system routes are never the dashboard's.
 */
export function canCall(scopes: readonly string[], route: RouteContract): boolean {
  if (route.surface === 'public') return true;
  return route.surface === 'tenant' && hasScope(scopes, route.scope);
}

/** A screen is shown when the session may call at least one of the routes it reads. */
export function canSeeAny(scopes: readonly string[], routes: readonly RouteContract[]): boolean {
  return routes.some((route) => canCall(scopes, route));
}
