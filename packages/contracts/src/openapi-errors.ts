import { ERROR_STATUS, errorBodySchema, type ErrorCode } from './errors';
import type { SchemaWriter } from './openapi-schemas';
import type { RouteContract, Surface } from './route-contract';

/**
 * What the gateway refuses before a service sees the request, by surface (services/gateway/README.md):
 * credentials, their restrictions and scope, the actor, and the rate limits. The system key is
 * never limited, but an address that used its allowance up on failed attempts is refused on
 * every surface.
 */
const SURFACE_ERRORS: Readonly<Record<Surface, readonly ErrorCode[]>> = {
  tenant: [
    'MISSING_CREDENTIALS',
    'INVALID_API_KEY',
    'API_KEY_REVOKED',
    'API_KEY_EXPIRED',
    'INVALID_SESSION',
    'MISSING_REQUEST_SIGNATURE_HEADER',
    'INVALID_REQUEST_NONCE',
    'STALE_REQUEST_TIMESTAMP',
    'INVALID_REQUEST_CONTENT_HASH',
    'INVALID_REQUEST_SIGNATURE',
    'REQUEST_NONCE_REPLAYED',
    'INSUFFICIENT_SCOPE',
    'IP_NOT_ALLOWED',
    'ACTOR_HEADERS_REQUIRED',
    'ACTOR_MISMATCH',
    'RATE_LIMITED',
  ],
  system: ['MISSING_CREDENTIALS', 'INVALID_SYSTEM_KEY', 'RATE_LIMITED'],
  public: ['RATE_LIMITED'],
};

/** A body is read, size-checked and parsed by the gateway and again by the service (docs/decisions/request-bodies.md). */
const BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** docs/decisions/idempotency.md: a key in use by a running request, or reused for another one. */
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ['IDEMPOTENCY_REQUEST_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED'];

/** Codes answered with a Retry-After header. */
const RETRY_LATER: ReadonlySet<ErrorCode> = new Set([
  'RATE_LIMITED',
  'LOGIN_TEMPORARILY_LOCKED',
  'IDEMPOTENCY_REQUEST_IN_PROGRESS',
  'CASE_HOLD_IN_PROGRESS',
]);

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request is malformed',
  401: 'Who is calling is not established',
  403: 'The caller may not do this',
  404: "Not found, or not the caller's: another tenant's or environment's is not found either",
  409: "The resource's state conflicts",
  413: 'The body is too large',
  415: 'The body is not JSON in UTF-8',
  422: 'Well formed, but refused by a business rule',
  429: 'Too many requests: retry after the seconds Retry-After says',
};

/**
 * The 4xx codes a route can answer: its own (`errors`) and what its surface, body, query, path
 * ids and Idempotency-Key bring. Any request may carry a query, whose text the gateway checks
 * (400 VALIDATION_ERROR), so every route has that one. 5xx have their shared answers.
 */
export function routeErrorCodes(route: RouteContract): ErrorCode[] {
  const codes = new Set<ErrorCode>(['VALIDATION_ERROR', ...SURFACE_ERRORS[route.surface], ...(route.errors ?? [])]);
  if (route.body) for (const code of BODY_ERRORS) codes.add(code);
  if (route.query && 'cursor' in route.query.shape) codes.add('INVALID_CURSOR');
  // A path id without its kind's shape names nothing: 404 at the gateway (docs/decisions/wire-conventions.md).
  if (route.path.includes('{')) codes.add('NOT_FOUND');
  if (route.idempotencyKey) for (const code of IDEMPOTENCY_ERRORS) codes.add(code);
  if (route.idempotencyKey === 'required') codes.add('IDEMPOTENCY_KEY_REQUIRED');
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => codes.has(code) && ERROR_STATUS[code] < 500);
}

/**
 * One answer per 4xx status, naming its codes (also as `x-error-codes`, for generators and
 * tests), the shared error body, and Retry-After where one of its codes comes with it.
 */
export function errorResponses(route: RouteContract, schemas: SchemaWriter): Record<string, unknown> {
  const body = { 'application/json': { schema: schemas.write(errorBodySchema, 'output') } };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrorCodes(route)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      String(status),
      {
        description: `${STATUS_TEXT[status] ?? 'Refused'}. Codes: ${codes.join(', ')}`,
        ...(codes.some((code) => RETRY_LATER.has(code)) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
        content: body,
        'x-error-codes': codes,
      },
    ]),
  );
}
