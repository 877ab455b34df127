import { AMOUNT_MAX_INTEGER_DIGITS } from './money';
import { REQUEST_NONCE_RULE } from './signing';
import { createOrganizationBodySchema, createTenantBodySchema, organizationSchema, tenantSchema } from './http/identity';
import { LEDGER_ROUTES } from './http/ledger';
import { pageQuerySchema, pageSchema } from './common';
import type { RouteContract } from './route-contract';
import { routeOperation } from './openapi-operations';
import { type JsonSchema, SchemaWriter } from './openapi-schemas';
import { errorBodySchema } from './errors';
import { type WebhookEvent, webhookPathItems } from './openapi-webhooks';
import { AUDIT_ROUTES } from './http/audit';
import { API_KEY_ROUTES } from './http/api-keys';
import { MOMO_PROVIDER_ROUTES } from './http/momo-providers';
import { AUTH_ROUTES, TEAM_ROUTES } from './http/team';
import { REQUEST_LOG_ROUTES } from './http/request-logs';
import { WALLET_ROUTES } from './http/wallets';
import { FEE_ROUTES } from './http/fees';
import { DEPOSIT_ROUTES } from './http/deposits';
import { STATEMENT_MATCH_ROUTES } from './http/statement-matches';
import { TRANSFER_ROUTES } from './http/transfers';
import { EXPORT_ROUTES } from './http/exports';
import { PAYOUT_ROUTES } from './http/payouts';
import { PLATFORM_ROUTES } from './http/platform';
import { RECONCILIATION_ROUTES } from './http/reconciliation';
import { TREASURY_ROUTES } from './http/treasury';
import { ANALYTICS_ROUTES } from './http/analytics';
import { EVENT_ROUTES, webhookEventSchema } from './http/events';
import { EVENT_TYPES } from './messages/platform-event.v1';

export type { RouteContract, ServiceName, Surface } from './route-contract';
export type { WebhookEvent } from './openapi-webhooks';

/** Every public route; the gateway routes and documents from this list. */
export const ROUTES: RouteContract[] = [
  {
    method: 'post',
    path: '/v1/tenants',
    operationId: 'system.tenants.create',
    summary: 'Create a tenant',
    surface: 'system',
    service: 'identity',
    body: createTenantBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: tenantSchema },
    errors: ['INVALID_AMOUNT', 'SLUG_TAKEN'],
  },
  {
    method: 'get',
    path: '/v1/tenants/{id}',
    operationId: 'system.tenants.get',
    summary: 'Get a tenant',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: tenantSchema },
    errors: ['TENANT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/system/organizations',
    operationId: 'system.organizations.create',
    summary: 'Create an organization, optionally with its invited admin',
    surface: 'system',
    service: 'identity',
    body: createOrganizationBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: organizationSchema },
    errors: ['INVALID_AMOUNT', 'SLUG_TAKEN'],
  },
  {
    method: 'get',
    path: '/v1/system/organizations',
    operationId: 'system.organizations.list',
    summary: 'List organizations',
    surface: 'system',
    service: 'identity',
    query: pageQuerySchema,
    success: { status: 200, schema: pageSchema(organizationSchema) },
  },
  {
    method: 'get',
    path: '/v1/system/organizations/{id}',
    operationId: 'system.organizations.get',
    summary: 'Get an organization',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: organizationSchema },
    errors: ['TENANT_NOT_FOUND'],
  },
  ...LEDGER_ROUTES,
  ...AUDIT_ROUTES,
  ...API_KEY_ROUTES,
  ...MOMO_PROVIDER_ROUTES,
  ...TEAM_ROUTES,
  ...AUTH_ROUTES,
  ...REQUEST_LOG_ROUTES,
  ...WALLET_ROUTES,
  ...FEE_ROUTES,
  ...DEPOSIT_ROUTES,
  ...STATEMENT_MATCH_ROUTES,
  ...TRANSFER_ROUTES,
  ...PAYOUT_ROUTES,
  ...PLATFORM_ROUTES,
  ...RECONCILIATION_ROUTES,
  ...TREASURY_ROUTES,
  ...ANALYTICS_ROUTES,
  ...EVENT_ROUTES,
  ...EXPORT_ROUTES,
];

/** What holds for every route: amounts, bodies, ids and cursors, and the error body. */
const API_DESCRIPTION = [
  'Amounts are decimal strings in responses; requests accept a JSON number (read losslessly) or a decimal string.',
  `Every amount has at most ${AMOUNT_MAX_INTEGER_DIGITS} integer digits and at most the currency's fraction digits (ISO 4217 minor units; trailing zeros count: 10.000 is not a USD amount); exponents, signs and zero are refused. Any of these is 400 INVALID_AMOUNT and changes nothing.`,
  'Request bodies are JSON objects in UTF-8: a Content-Type charset other than utf-8 (any case) is 415 UNSUPPORTED_MEDIA_TYPE; bytes that are not valid UTF-8, or a body that is not an object (123, "x", [], null), are 400 VALIDATION_ERROR. Text anywhere in a body or query may not contain U+0000, and names and ids may not contain control characters or bidirectional overrides (400 VALIDATION_ERROR naming the field). Every date and time lies in [1970-01-01, 9999-12-31) UTC.',
  "Path ids have their type's shape (a prefix such as wl_ and letters and digits); any other is 404 NOT_FOUND. Id filters of another shape are 400 VALIDATION_ERROR. A cursor works only on the list that issued it, for the same tenant and environment; any other is 400 INVALID_CURSOR.",
  'Errors share one body: {"error": {code, message, details?, correlationId}}; each 4xx answer of an operation names its codes',
  '(also as x-error-codes). Every answer carries X-Correlation-Id.',
].join(' ');

const SECURITY_SCHEMES = {
  systemKey: { type: 'apiKey', in: 'header', name: 'X-System-Key' },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  session: { type: 'http', scheme: 'bearer', description: 'Dashboard session token from POST /v1/auth/login' },
  signedRequest: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Signature',
    description:
      'v1 signed request: X-Service-Key-Id, X-Service-Timestamp, X-Service-Nonce, X-Service-Content-SHA256, X-Service-Signature. ' +
      `The nonce is a UUID or at least 128 random bits: ${REQUEST_NONCE_RULE}, ` +
      'else 401 INVALID_REQUEST_NONCE before the signature is checked.',
  },
};

/** Answers and headers every operation shares, `$ref`ed from each; `errorBody` is the Error component. */
function sharedComponents(errorBody: JsonSchema) {
  const content = { 'application/json': { schema: errorBody } };
  return {
    headers: {
      RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
      IdempotentReplayed: {
        description: 'true when this answer is the replay of the first request made with the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    responses: {
      ServiceUnavailable: {
        description:
          'SERVICE_UNAVAILABLE: a dependency of this request (its database, the broker, another service) is briefly unavailable; ' +
          'never 500 for that. Retry after the Retry-After header (seconds); a write retried with its Idempotency-Key takes effect at most once.',
        headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        content,
      },
      InternalError: { description: 'INTERNAL_ERROR: a bug; nothing more is said of it than its correlation id', content },
    },
  };
}

/** One tag per service that answers, as operations are tagged. */
const TAGS = [
  {
    name: 'identity',
    description: 'Tenants and organizations, API keys, team members and sessions, mobile money providers, the audit trail',
  },
  { name: 'ledger', description: 'The journal, ledger accounts and their balances, ledger reconciliation' },
  { name: 'payments', description: 'Wallets, deposits, bank statements, transfers, payouts, fees, reconciliation' },
  { name: 'treasury', description: "The tenant's own money: balances, float deposits, withdrawals; analytics" },
  { name: 'gateway', description: 'Answered by the gateway itself: request logs' },
];

/** Events sent to tenants' webhook endpoints, documented under `webhooks` (OpenAPI 3.1; docs/events.md). */
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = EVENT_TYPES.map((type) => ({
  type,
  schema: webhookEventSchema(type),
}));

/**
 * The OpenAPI 3.1 document of the public API, generated from the contracts. `serverUrl` is where
 * it is served from, by default the server that serves the document ('/'); `webhooks` stands in
 * for WEBHOOK_EVENTS (tests try the extension point with events of their own).
 */
export function buildOpenApiDocument(info: {
  version: string;
  serverUrl?: string;
  webhooks?: readonly WebhookEvent[];
}): Record<string, unknown> {
  const schemas = new SchemaWriter();
  const shared = sharedComponents(schemas.write(errorBodySchema, 'output'));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: routeOperation(route, schemas) };
  const events = info.webhooks ?? WEBHOOK_EVENTS;
  const webhooks = events.length > 0 ? { webhooks: webhookPathItems(events, schemas) } : {};
  return {
    openapi: '3.1.0',
    info: { title: 'Wallet and ledger platform API', version: info.version, description: API_DESCRIPTION },
    servers: [{ url: info.serverUrl ?? '/', description: 'The gateway that serves this document' }],
    tags: events.length > 0 ? [...TAGS, { name: 'webhooks', description: 'What the platform posts to webhook endpoints' }] : TAGS,
    paths,
    ...webhooks,
    components: { schemas: schemas.components(), ...shared, securitySchemes: SECURITY_SCHEMES },
  };
}
