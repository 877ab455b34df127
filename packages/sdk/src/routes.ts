import * as contracts from '@wallet/contracts';
import {
  acceptInviteBodySchema,
  apiKeyListQuerySchema,
  apiKeySchema,
  apiKeyWithSecretSchema,
  auditEventQuerySchema,
  auditEventSchema,
  createApiKeyBodySchema,
  createMomoProviderBodySchema,
  createOrganizationBodySchema,
  createTeamMemberBodySchema,
  createTenantBodySchema,
  journalEntrySchema,
  journalPageSchema,
  journalQuerySchema,
  ledgerAccountPageSchema,
  ledgerAccountQuerySchema,
  loginBodySchema,
  logoutBodySchema,
  logoutResultSchema,
  momoProviderSchema,
  momoProviderWithSecretSchema,
  organizationSchema,
  pageQuerySchema,
  pageSchema,
  reconciliationResultSchema,
  requestLogQuerySchema,
  requestLogSchema,
  rotateApiKeyBodySchema,
  rotateMomoProviderSecretBodySchema,
  type RouteContract,
  sessionSchema,
  statementPageSchema,
  statementQuerySchema,
  teamMemberQuerySchema,
  teamMemberSchema,
  tenantSchema,
  updateApiKeyBodySchema,
  updateTeamMemberBodySchema,
} from '@wallet/contracts';
import type { z } from 'zod';
import { type PathParamNames, type PathParams, routeKey } from './paths';

export type HttpMethod = RouteContract['method'];

/**
 * What the client needs of a route. Every RouteContract of packages/contracts is one, so the
 * contracts' routes can be called directly; a route whose schemas are precisely typed (not
 * widened to `z.ZodType`) gets typed params, query, body and result.
 */
export interface ApiRoute {
  method: HttpMethod;
  /** OpenAPI path template: `/v1/journal/{id}`. */
  path: string;
  query?: z.ZodType;
  body?: z.ZodType;
  success: { status: number; schema: z.ZodType };
}

/** The route's query or body schema; never when the route has none. */
type FieldSchema<Route, Field extends 'query' | 'body'> = Field extends keyof Route ? Exclude<Route[Field], undefined> : never;
/** Whether the schema is optional in the route's type, as in a RouteContract seen through its wide type. */
type FieldOptional<Route, Field extends 'query' | 'body'> = object extends Pick<Route, Field & keyof Route> ? true : false;

export type RouteQuery<Route extends ApiRoute> = [FieldSchema<Route, 'query'>] extends [never]
  ? undefined
  : z.input<FieldSchema<Route, 'query'>>;
export type RouteBody<Route extends ApiRoute> = [FieldSchema<Route, 'body'>] extends [never]
  ? undefined
  : z.input<FieldSchema<Route, 'body'>>;
export type RouteResult<Route extends ApiRoute> = z.output<Route['success']['schema']>;
export type RouteParams<Route extends ApiRoute> = PathParams<Route['path']>;

type ParamsInput<Route extends ApiRoute> = string extends Route['path']
  ? { params?: Record<string, string> | undefined }
  : [PathParamNames<Route['path']>] extends [never]
    ? { params?: undefined }
    : { params: RouteParams<Route> };
type QueryInput<Route extends ApiRoute> = [FieldSchema<Route, 'query'>] extends [never]
  ? { query?: undefined }
  : { query?: RouteQuery<Route> | undefined };
type BodyInput<Route extends ApiRoute> = [FieldSchema<Route, 'body'>] extends [never]
  ? { body?: undefined }
  : FieldOptional<Route, 'body'> extends true
    ? { body?: RouteBody<Route> | undefined }
    : { body: RouteBody<Route> };

/** What a call of the route takes: path params when the template has some, query, body. */
export type RouteInput<Route extends ApiRoute> = ParamsInput<Route> & QueryInput<Route> & BodyInput<Route>;

/** Routes of this SDK's namespaces: they follow packages/contracts at run time (see effectiveSchemas). */
const sdkRoutes = new WeakSet<ApiRoute>();

/**
 * A route of the contracts with its schemas' precise types, which the contracts' route lists
 * widen to `z.ZodType`. routes.suite.ts checks every one against its contracts copy.
 */
function defineRoute<const Route extends ApiRoute>(route: Route): Route {
  sdkRoutes.add(route);
  return route;
}

/** Every route the SDK's namespaces call. */
export const SDK_ROUTES = {
  createTenant: defineRoute({
    method: 'post',
    path: '/v1/tenants',
    body: createTenantBodySchema,
    success: { status: 201, schema: tenantSchema },
  }),
  getTenant: defineRoute({ method: 'get', path: '/v1/tenants/{id}', success: { status: 200, schema: tenantSchema } }),
  createOrganization: defineRoute({
    method: 'post',
    path: '/v1/system/organizations',
    body: createOrganizationBodySchema,
    success: { status: 201, schema: organizationSchema },
  }),
  listOrganizations: defineRoute({
    method: 'get',
    path: '/v1/system/organizations',
    query: pageQuerySchema,
    success: { status: 200, schema: pageSchema(organizationSchema) },
  }),
  getOrganization: defineRoute({
    method: 'get',
    path: '/v1/system/organizations/{id}',
    success: { status: 200, schema: organizationSchema },
  }),
  systemReconciliation: defineRoute({
    method: 'get',
    path: '/v1/system/ledger/reconciliation',
    success: { status: 200, schema: reconciliationResultSchema },
  }),

  listJournal: defineRoute({
    method: 'get',
    path: '/v1/journal',
    query: journalQuerySchema,
    success: { status: 200, schema: journalPageSchema },
  }),
  getJournalEntry: defineRoute({ method: 'get', path: '/v1/journal/{id}', success: { status: 200, schema: journalEntrySchema } }),
  listLedgerAccounts: defineRoute({
    method: 'get',
    path: '/v1/ledger/accounts',
    query: ledgerAccountQuerySchema,
    success: { status: 200, schema: ledgerAccountPageSchema },
  }),
  listWalletEntries: defineRoute({
    method: 'get',
    path: '/v1/ledger/wallets/{walletId}/entries',
    query: statementQuerySchema,
    success: { status: 200, schema: statementPageSchema },
  }),
  ledgerReconciliation: defineRoute({
    method: 'get',
    path: '/v1/ledger/reconciliation',
    success: { status: 200, schema: reconciliationResultSchema },
  }),

  listAuditEvents: defineRoute({
    method: 'get',
    path: '/v1/team/audit-events',
    query: auditEventQuerySchema,
    success: { status: 200, schema: pageSchema(auditEventSchema) },
  }),

  listApiKeys: defineRoute({
    method: 'get',
    path: '/v1/developer/api-keys',
    query: apiKeyListQuerySchema,
    success: { status: 200, schema: pageSchema(apiKeySchema) },
  }),
  getApiKey: defineRoute({ method: 'get', path: '/v1/developer/api-keys/{id}', success: { status: 200, schema: apiKeySchema } }),
  createApiKey: defineRoute({
    method: 'post',
    path: '/v1/developer/api-keys',
    body: createApiKeyBodySchema,
    success: { status: 201, schema: apiKeyWithSecretSchema },
  }),
  updateApiKey: defineRoute({
    method: 'patch',
    path: '/v1/developer/api-keys/{id}',
    body: updateApiKeyBodySchema,
    success: { status: 200, schema: apiKeySchema },
  }),
  rotateApiKey: defineRoute({
    method: 'post',
    path: '/v1/developer/api-keys/{id}/rotate',
    body: rotateApiKeyBodySchema,
    success: { status: 200, schema: apiKeyWithSecretSchema },
  }),
  revokeApiKey: defineRoute({ method: 'post', path: '/v1/developer/api-keys/{id}/revoke', success: { status: 200, schema: apiKeySchema } }),
  createTenantApiKey: defineRoute({
    method: 'post',
    path: '/v1/tenants/{id}/api-keys',
    body: createApiKeyBodySchema,
    success: { status: 201, schema: apiKeyWithSecretSchema },
  }),
  listTenantApiKeys: defineRoute({
    method: 'get',
    path: '/v1/tenants/{id}/api-keys',
    query: apiKeyListQuerySchema,
    success: { status: 200, schema: pageSchema(apiKeySchema) },
  }),
  rotateTenantApiKey: defineRoute({
    method: 'post',
    path: '/v1/tenants/{id}/api-keys/{keyId}/rotate',
    body: rotateApiKeyBodySchema,
    success: { status: 200, schema: apiKeyWithSecretSchema },
  }),
  revokeTenantApiKey: defineRoute({
    method: 'post',
    path: '/v1/tenants/{id}/api-keys/{keyId}/revoke',
    success: { status: 200, schema: apiKeySchema },
  }),

  createTeamMember: defineRoute({
    method: 'post',
    path: '/v1/team',
    body: createTeamMemberBodySchema,
    success: { status: 201, schema: teamMemberSchema },
  }),
  listTeamMembers: defineRoute({
    method: 'get',
    path: '/v1/team',
    query: teamMemberQuerySchema,
    success: { status: 200, schema: pageSchema(teamMemberSchema) },
  }),
  getTeamMember: defineRoute({ method: 'get', path: '/v1/team/{memberId}', success: { status: 200, schema: teamMemberSchema } }),
  updateTeamMember: defineRoute({
    method: 'patch',
    path: '/v1/team/{memberId}',
    body: updateTeamMemberBodySchema,
    success: { status: 200, schema: teamMemberSchema },
  }),

  login: defineRoute({ method: 'post', path: '/v1/auth/login', body: loginBodySchema, success: { status: 200, schema: sessionSchema } }),
  logout: defineRoute({
    method: 'post',
    path: '/v1/auth/logout',
    body: logoutBodySchema,
    success: { status: 200, schema: logoutResultSchema },
  }),
  acceptInvite: defineRoute({
    method: 'post',
    path: '/v1/auth/accept-invite',
    body: acceptInviteBodySchema,
    success: { status: 200, schema: sessionSchema },
  }),

  createMomoProvider: defineRoute({
    method: 'post',
    path: '/v1/admin/momo-providers',
    body: createMomoProviderBodySchema,
    success: { status: 201, schema: momoProviderWithSecretSchema },
  }),
  listMomoProviders: defineRoute({
    method: 'get',
    path: '/v1/admin/momo-providers',
    query: pageQuerySchema,
    success: { status: 200, schema: pageSchema(momoProviderSchema) },
  }),
  getMomoProvider: defineRoute({
    method: 'get',
    path: '/v1/admin/momo-providers/{id}',
    success: { status: 200, schema: momoProviderSchema },
  }),
  rotateMomoProviderSecret: defineRoute({
    method: 'post',
    path: '/v1/admin/momo-providers/{id}/rotate-secret',
    body: rotateMomoProviderSecretBodySchema,
    success: { status: 200, schema: momoProviderWithSecretSchema },
  }),

  listRequestLogs: defineRoute({
    method: 'get',
    path: '/v1/developer/request-logs',
    query: requestLogQuerySchema,
    success: { status: 200, schema: pageSchema(requestLogSchema) },
  }),
} as const;

/**
 * POSTs that create a financial record or a wallet (service spec, Limits). A call of one of
 * these without an Idempotency-Key gets one generated, so that it can be retried safely.
 */
export const IDEMPOTENT_CREATE_PATHS: ReadonlySet<string> = new Set([
  '/v1/wallets',
  '/v1/transfers',
  '/v1/transfers/{id}/reversals',
  '/v1/payouts',
  '/v1/deposits/bank-slips',
  '/v1/admin/money/float-deposits',
  '/v1/admin/money/withdrawals',
]);

export function createsFinancialRecord(method: string, pathTemplate: string): boolean {
  return method.toUpperCase() === 'POST' && IDEMPOTENT_CREATE_PATHS.has(pathTemplate.split('?')[0] ?? '');
}

let contractRoutes: Map<string, RouteContract> | null = null;

/**
 * Every route packages/contracts exports: ROUTES plus any `*_ROUTES` list, so a route that lands
 * there is picked up without touching the SDK.
 */
export function contractRouteIndex(): ReadonlyMap<string, RouteContract> {
  if (contractRoutes) return contractRoutes;
  const index = new Map<string, RouteContract>();
  for (const [name, value] of Object.entries(contracts)) {
    if ((name !== 'ROUTES' && !name.endsWith('_ROUTES')) || !Array.isArray(value)) continue;
    for (const route of value as RouteContract[]) {
      const key = routeKey(route.method, route.path);
      if (!index.has(key)) index.set(key, route);
    }
  }
  contractRoutes = index;
  return index;
}

/**
 * The schemas a call is checked with. For the SDK's own routes, the contracts' copy of the
 * route, so that checks follow packages/contracts even where this file lags behind; a route the
 * caller passes is taken as given.
 */
export function effectiveSchemas(route: ApiRoute): Pick<ApiRoute, 'query' | 'body' | 'success'> {
  if (!sdkRoutes.has(route)) return route;
  return contractRouteIndex().get(routeKey(route.method, route.path)) ?? route;
}
