import { REQUEST_LOG_ROUTES, requestLogQuerySchema } from '@wallet/contracts';
import { AppError, parseOrThrow, routeName } from '@wallet/kit';
import type { LocalHandler } from '../proxy/local-routes';
import type { RequestLogStore } from './request-log-store';

/** `GET /v1/developer/request-logs`: the caller's tenant and environment only, whatever the query says. */
export function requestLogRoutes(store: RequestLogStore): Array<[string, LocalHandler]> {
  const list: LocalHandler = async ({ principal, request, response }) => {
    if (principal.surface !== 'tenant' || !principal.tenantId || !principal.environment) {
      throw new AppError('INSUFFICIENT_SCOPE', 'This route is for tenant credentials');
    }
    const query = parseOrThrow(requestLogQuerySchema, request.query, 'query');
    response.json(await store.list({ tenantId: principal.tenantId, environment: principal.environment }, query));
  };
  return REQUEST_LOG_ROUTES.map((route) => [routeName(route), list]);
}
