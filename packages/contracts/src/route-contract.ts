import type { z } from 'zod';
import type { ErrorCode } from './errors';

/**
 * `system`: the platform operator's X-System-Key. `tenant`: a tenant's key or dashboard session,
 * and always a declared scope. `public`: no credential at all (login, invites, the provider
 * webhook, which carries its own signature).
 */
export type Surface = 'system' | 'tenant' | 'public';
/** `gateway` routes are answered by the gateway itself (its request logs). */
export type ServiceName = 'gateway' | 'identity' | 'ledger' | 'payments' | 'treasury';

interface RouteBase {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template: `/v1/journal/{id}`. */
  path: string;
  /**
   * The route's name in the OpenAPI document, unique: the SDK's call of it (`client.transfers.create`
   * is `transfers.create`), so a generated client and the SDK name it alike (docs/decisions/openapi.md).
   * Every route of ROUTES has one (packages/contracts/test/openapi.suite.ts); a route no document
   * lists (the dashboard listener's own) needs none.
   */
  operationId?: string;
  summary: string;
  service: ServiceName;
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * Media types the route takes besides JSON, and its body size limit (default 1 MiB): the
   * gateway and the service read such bodies as text instead of refusing them with 415.
   */
  bodyOptIn?: { mediaTypes: readonly string[]; limitBytes: number };
  success: { status: number; schema: z.ZodType };
  /** The success answer's media type when it is not JSON (an export's `text/csv`, streamed). */
  answers?: 'text/csv';
  /**
   * Other 2xx answers with the same body, and when each comes: `202` when the ledger has not
   * confirmed a money movement within the deadline (docs/decisions/response-shapes.md), `200`
   * for a repeated delivery.
   */
  alsoAnswers?: Readonly<Partial<Record<200 | 201 | 202, string>>>;
  /**
   * The error codes the route itself can answer. What every route of its surface, body, query,
   * path ids and Idempotency-Key can answer is added by the OpenAPI document (openapi-errors.ts).
   */
  errors?: readonly ErrorCode[];
  /**
   * How the route takes an `Idempotency-Key` header: `required` (money movements) or
   * `optional`. With a key, a retry of the same request replays the first answer
   * (`Idempotent-Replayed: true`), another request with the key is 422 IDEMPOTENCY_KEY_REUSED,
   * and one still running is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS. Every POST that creates
   * something takes one.
   */
  idempotencyKey?: 'required' | 'optional';
}

/**
 * A tenant route without a scope does not type-check, and the gateway refuses one at run time
 * as well: authorization is deny by default.
 */
export type RouteContract =
  | (RouteBase & { surface: 'tenant'; scope: string })
  | (RouteBase & { surface: 'system' | 'public'; scope?: undefined });
