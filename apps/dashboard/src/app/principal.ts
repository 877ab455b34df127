import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import type { DashboardPrincipal } from '@wallet/contracts';
import { sessionQuery } from '../api/session';

const sessionRouteApi = getRouteApi('/_session');

/**
 * The signed-in session's principal on any screen behind the session route: as the route
 * checked it, then as the session query last read it (a role changed meanwhile shows at once).
 * Observing the query also lets its expiry re-read reach the login redirect.
 */
export function usePrincipal(): DashboardPrincipal {
  const checked = sessionRouteApi.useRouteContext({ select: (context) => context.principal });
  return useQuery(sessionQuery).data ?? checked;
}
