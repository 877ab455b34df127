import { z } from 'zod';
import { errorBodySchema } from './errors';
import { AMOUNT_MAX_INTEGER_DIGITS } from './money';
import { REQUEST_NONCE_RULE } from './signing';
import { createOrganizationBodySchema, createTenantBodySchema, organizationSchema, tenantSchema } from './http/identity';
import { LEDGER_ROUTES } from './http/ledger';
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
import { EVENT_ROUTES } from './http/events';

export type { RouteContract, ServiceName, Surface } from './route-contract';

/** Every public route; the gateway routes and documents from this list. */
export const ROUTES: RouteContract[] = [
  {
    method: 'post',
    path: '/v1/tenants',
    summary: 'Create a tenant',
    surface: 'system',
    service: 'identity',
    body: createTenantBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: tenantSchema },
  },
  {
    method: 'get',
    path: '/v1/tenants/{id}',
    summary: 'Get a tenant',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: tenantSchema },
  },
  {
    method: 'post',
    path: '/v1/system/organizations',
    summary: 'Create an organization, optionally with its invited admin',
    surface: 'system',
    service: 'identity',
    body: createOrganizationBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: organizationSchema },
  },
  {
    method: 'get',
    path: '/v1/system/organizations',
    summary: 'List organizations',
    surface: 'system',
    service: 'identity',
    query: pageQuerySchema,
    success: { status: 200, schema: pageSchema(organizationSchema) },
  },
  {
    method: 'get',
    path: '/v1/system/organizations/{id}',
    summary: 'Get an organization',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: organizationSchema },
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
  ...TRANSFER_ROUTES,
  ...PAYOUT_ROUTES,
  ...PLATFORM_ROUTES,
  ...RECONCILIATION_ROUTES,
  ...TREASURY_ROUTES,
  ...ANALYTICS_ROUTES,
  ...EVENT_ROUTES,
];

const IDEMPOTENCY_KEY_DESCRIPTION =
  'Kept 24 hours per tenant and environment (the platform operator has its own). A retry with the same key and the same request (method, path, query, actor, body bytes) replays the first answer with Idempotent-Replayed: true; another request with it is 422 IDEMPOTENCY_KEY_REUSED; one still running is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS. An answer holding a secret shown once (API keys, webhook secrets) is kept encrypted under the service master key, never in clear.';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, unknown>;
}

/** Any route, when a dependency it needs (a database, the broker, another service) is briefly away. */
const UNAVAILABLE_RESPONSE = {
  description:
    'SERVICE_UNAVAILABLE: a dependency of this request (its database, the broker, another service) is briefly unavailable; never 500 for that. Retry after the Retry-After header (seconds); a write retried with its Idempotency-Key takes effect at most once.',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  content: { 'application/json': { schema: jsonSchema(errorBodySchema, 'output') } },
};

/** What holds for every route: amounts, bodies, ids and cursors, and the error body. */
const API_DESCRIPTION = [
  'Amounts are decimal strings in responses; requests accept a JSON number (read losslessly) or a decimal string.',
  `Every amount has at most ${AMOUNT_MAX_INTEGER_DIGITS} integer digits and at most the currency's fraction digits (ISO 4217 minor units; trailing zeros count: 10.000 is not a USD amount); exponents, signs and zero are refused. Any of these is 400 INVALID_AMOUNT and changes nothing.`,
  'Request bodies are JSON objects in UTF-8: a Content-Type charset other than utf-8 (any case) is 415 UNSUPPORTED_MEDIA_TYPE; bytes that are not valid UTF-8, or a body that is not an object (123, "x", [], null), are 400 VALIDATION_ERROR. Text anywhere in a body or query may not contain U+0000, and names and ids may not contain control characters or bidirectional overrides (400 VALIDATION_ERROR naming the field). Every date and time lies in [1970-01-01, 9999-12-31) UTC.',
  "Path ids have their type's shape (a prefix such as wl_ and letters and digits); any other is 404 NOT_FOUND. Id filters of another shape are 400 VALIDATION_ERROR. A cursor works only on the list that issued it, for the same tenant and environment; any other is 400 INVALID_CURSOR.",
  'Errors share one body: {"error": {code, message, details?, correlationId}}.',
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

/** A route's path ids, its query fields and its Idempotency-Key header. */
function routeParameters(route: RouteContract): unknown[] {
  const parameters: unknown[] = [];
  for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
    parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    for (const [name, field] of Object.entries(route.query.shape)) {
      // Required when leaving it out fails (no default, not optional): a balance's `at`.
      parameters.push({
        name,
        in: 'query',
        required: !(field as z.ZodType).safeParse(undefined).success,
        schema: jsonSchema(field as z.ZodType, 'input'),
      });
    }
  }
  if (route.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.idempotencyKey === 'required',
      description: IDEMPOTENCY_KEY_DESCRIPTION,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return parameters;
}

/** A route's operation: parameters, credentials, answers, scope and body. */
function routeOperation(route: RouteContract): Record<string, unknown> {
  const security =
    route.surface === 'system'
      ? [{ systemKey: [] }]
      : route.surface === 'public'
        ? []
        : [{ apiKey: [] }, { signedRequest: [] }, { session: [] }];
  const operation: Record<string, unknown> = {
    summary: route.summary,
    tags: [route.service],
    parameters: routeParameters(route),
    security,
    responses: {
      [String(route.success.status)]: {
        description: 'Success',
        content: { 'application/json': { schema: jsonSchema(route.success.schema, 'output') } },
      },
      '503': UNAVAILABLE_RESPONSE,
      default: { description: 'Error', content: { 'application/json': { schema: jsonSchema(errorBodySchema, 'output') } } },
    },
  };
  if (route.scope) operation['x-required-scope'] = route.scope;
  if (route.body) {
    const alsoAccepted = Object.fromEntries(
      (route.bodyOptIn?.mediaTypes ?? []).map((mediaType) => [mediaType, { schema: { type: 'string' } }]),
    );
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: jsonSchema(route.body, 'input') }, ...alsoAccepted },
    };
  }
  return operation;
}

/** The OpenAPI 3 document of the public API, generated from the contracts. */
export function buildOpenApiDocument(info: { version: string; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: routeOperation(route) };
  return {
    openapi: '3.0.3',
    info: { title: 'Wallet and ledger platform API', version: info.version, description: API_DESCRIPTION },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
    components: { securitySchemes: SECURITY_SCHEMES },
    paths,
  };
}
