import { z } from 'zod';
import { errorBodySchema } from './errors';
import {
  createOrganizationBodySchema,
  createTenantBodySchema,
  organizationSchema,
  tenantSchema,
} from './http/identity';
import {
  journalEntrySchema,
  journalPageSchema,
  journalQuerySchema,
  ledgerAccountPageSchema,
  ledgerAccountQuerySchema,
  reconciliationResultSchema,
  statementPageSchema,
} from './http/ledger';
import { pageQuerySchema, pageSchema } from './common';
import type { RouteContract } from './route-contract';
import { AUDIT_ROUTES } from './http/audit';
import { API_KEY_ROUTES } from './http/api-keys';
import { MOMO_PROVIDER_ROUTES } from './http/momo-providers';
import { AUTH_ROUTES, TEAM_ROUTES } from './http/team';
import { REQUEST_LOG_ROUTES } from './http/request-logs';
import { WALLET_ROUTES } from './http/wallets';
import { FEE_ROUTES } from './http/fees';
import { DEPOSIT_ROUTES } from './http/deposits';
import { TRANSFER_ROUTES } from './http/transfers';
import { PAYOUT_ROUTES } from './http/payouts';
import { PLATFORM_ROUTES } from './http/platform';
import { RECONCILIATION_ROUTES } from './http/reconciliation';
import { TREASURY_ROUTES } from './http/treasury';
import { ANALYTICS_ROUTES } from './http/analytics';

export type { RouteContract, ServiceName, Surface } from './route-contract';

/** Every public route; the gateway routes and documents from this list. */
export const ROUTES: RouteContract[] = [
  { method: 'post', path: '/v1/tenants', summary: 'Create a tenant', surface: 'system', service: 'identity', body: createTenantBodySchema, success: { status: 201, schema: tenantSchema } },
  { method: 'get', path: '/v1/tenants/{id}', summary: 'Get a tenant', surface: 'system', service: 'identity', success: { status: 200, schema: tenantSchema } },
  { method: 'post', path: '/v1/system/organizations', summary: 'Create an organization, optionally with its invited admin', surface: 'system', service: 'identity', body: createOrganizationBodySchema, success: { status: 201, schema: organizationSchema } },
  { method: 'get', path: '/v1/system/organizations', summary: 'List organizations', surface: 'system', service: 'identity', query: pageQuerySchema, success: { status: 200, schema: pageSchema(organizationSchema) } },
  { method: 'get', path: '/v1/system/organizations/{id}', summary: 'Get an organization', surface: 'system', service: 'identity', success: { status: 200, schema: organizationSchema } },
  { method: 'get', path: '/v1/journal', summary: 'List journal entries, newest first', surface: 'tenant', service: 'ledger', scope: 'ledger:read', query: journalQuerySchema, success: { status: 200, schema: journalPageSchema } },
  { method: 'get', path: '/v1/journal/{id}', summary: 'Get one journal entry with its lines', surface: 'tenant', service: 'ledger', scope: 'ledger:read', success: { status: 200, schema: journalEntrySchema } },
  { method: 'get', path: '/v1/ledger/accounts', summary: 'List ledger accounts with their balances', surface: 'tenant', service: 'ledger', scope: 'ledger:read', query: ledgerAccountQuerySchema, success: { status: 200, schema: ledgerAccountPageSchema } },
  { method: 'get', path: '/v1/ledger/wallets/{walletId}/entries', summary: "A wallet account's statement with running balance", surface: 'tenant', service: 'ledger', scope: 'ledger:read', query: pageQuerySchema, success: { status: 200, schema: statementPageSchema } },
  { method: 'get', path: '/v1/ledger/reconciliation', summary: 'Run ledger reconciliation checks 1 and 2 now', surface: 'tenant', service: 'ledger', scope: 'analytics:read', success: { status: 200, schema: reconciliationResultSchema } },
  { method: 'get', path: '/v1/system/ledger/reconciliation', summary: 'Run ledger reconciliation checks 1 and 2 across all tenants', surface: 'system', service: 'ledger', success: { status: 200, schema: reconciliationResultSchema } },
  ...AUDIT_ROUTES,
  ...API_KEY_ROUTES,
  ...MOMO_PROVIDER_ROUTES,
  ...TEAM_ROUTES,
  ...AUTH_ROUTES,
  ...REQUEST_LOG_ROUTES,
  ...WALLET_ROUTES,
  ...FEE_ROUTES,
  ...DEPOSIT_ROUTES,
  ...TRANSFER_ROUTES,
  ...PAYOUT_ROUTES,
  ...PLATFORM_ROUTES,
  ...RECONCILIATION_ROUTES,
  ...TREASURY_ROUTES,
  ...ANALYTICS_ROUTES,
];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, unknown>;
}

/** The OpenAPI 3 document of the public API, generated from the contracts. */
/** Any route, when a dependency it needs (a database, the broker, another service) is briefly away. */
const UNAVAILABLE_RESPONSE = {
  description:
    'SERVICE_UNAVAILABLE: a dependency of this request (its database, the broker, another service) is briefly unavailable; never 500 for that. Retry after the Retry-After header (seconds); a write retried with its Idempotency-Key takes effect at most once.',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  content: { 'application/json': { schema: jsonSchema(errorBodySchema, 'output') } },
};

export function buildOpenApiDocument(info: { version: string; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const parameters: unknown[] = [];
    for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
      parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    if (route.query) {
      for (const [name, field] of Object.entries(route.query.shape)) {
        parameters.push({ name, in: 'query', required: false, schema: jsonSchema(field as z.ZodType, 'input') });
      }
    }
    const security = route.surface === 'system' ? [{ systemKey: [] }] : route.surface === 'public' ? [] : [{ apiKey: [] }, { signedRequest: [] }, { session: [] }];
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: [route.service],
      parameters,
      security,
      responses: {
        [String(route.success.status)]: { description: 'Success', content: { 'application/json': { schema: jsonSchema(route.success.schema, 'output') } } },
        '503': UNAVAILABLE_RESPONSE,
        default: { description: 'Error', content: { 'application/json': { schema: jsonSchema(errorBodySchema, 'output') } } },
      },
    };
    if (route.scope) operation['x-required-scope'] = route.scope;
    if (route.body) {
      const alsoAccepted = Object.fromEntries((route.bodyOptIn?.mediaTypes ?? []).map((mediaType) => [mediaType, { schema: { type: 'string' } }]));
      operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') }, ...alsoAccepted } };
    }
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: operation };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Wallet and ledger platform API',
      version: info.version,
      description:
        'Amounts are decimal strings in responses; requests accept a JSON number (read losslessly) or a decimal string. Errors share one body: {"error": {code, message, details?, correlationId}}.',
    },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
    components: {
      securitySchemes: {
        systemKey: { type: 'apiKey', in: 'header', name: 'X-System-Key' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        session: { type: 'http', scheme: 'bearer', description: 'Dashboard session token from POST /v1/auth/login' },
        signedRequest: { type: 'apiKey', in: 'header', name: 'X-Service-Signature', description: 'v1 signed request: X-Service-Key-Id, X-Service-Timestamp, X-Service-Nonce, X-Service-Content-SHA256, X-Service-Signature' },
      },
    },
    paths,
  };
}
