import { queryOptions } from '@tanstack/react-query';
import { dashboardAuthRoutes } from './auth-routes';
import { api } from './browser';

export const SESSION_QUERY_KEY = ['auth', 'session'] as const;

/** Who the cookie's session is; a 401 here (no session, or an expired one) sends the app to its login page. */
export const sessionQuery = queryOptions({
  queryKey: SESSION_QUERY_KEY,
  queryFn: ({ signal }) => api.call(dashboardAuthRoutes.session, { signal }),
  staleTime: 60_000,
  retry: false,
});
