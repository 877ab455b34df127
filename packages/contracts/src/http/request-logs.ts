import { idSchema } from '../ids';
import { z } from 'zod';
import { correlationIdSchema, instantInputSchema, pageQuerySchema, pageSchema } from '../common';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

/** How the gateway recognised the caller; `none` for public routes (login, invites). */
export const requestAuthModeSchema = z.enum(['secret', 'hmac', 'session', 'system', 'none']);
export type RequestAuthMode = z.infer<typeof requestAuthModeSchema>;

/** One request as the gateway answered it (docs/decisions/response-shapes.md). */
export const requestLogSchema = z.object({
  id: z.string(),
  correlationId: z.string(),
  method: z.string(),
  /** As received, without the query string. */
  path: z.string(),
  status: z.number().int(),
  apiKeyId: z.string().nullable(),
  /** null when the credential did not check out. */
  authMode: requestAuthModeSchema.nullable(),
  requestSignatureVerified: z.boolean(),
  idempotencyKey: z.string().nullable(),
  actorType: z.string().nullable(),
  actorId: z.string().nullable(),
  /** From the gateway receiving the request to the last byte of its answer. */
  durationMs: z.number().int().min(0),
  /** The `error.code` of the answer when its status is 400 or above, whether the gateway or a service gave it. */
  errorCode: z.string().nullable(),
  createdAt: z.string(),
});
export type RequestLog = z.infer<typeof requestLogSchema>;

export const REQUEST_LOG_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const requestLogQuerySchema = pageQuerySchema.extend({
  correlationId: correlationIdSchema.optional(),
  idempotencyKey: z.string().min(1).max(255).optional(),
  apiKeyId: idSchema('apiKey').optional(),
  /** `true` or `false`: a query string carries no booleans. */
  requestSignatureVerified: z
    .enum(['true', 'false'])
    .transform((text) => text === 'true')
    .optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  method: z.enum(REQUEST_LOG_METHODS).optional(),
  actorId: plainTextSchema(128, { trim: false }).optional(),
  /** Inclusive lower and exclusive upper bound on createdAt. */
  from: instantInputSchema.optional(),
  to: instantInputSchema.optional(),
});
export type RequestLogQuery = z.infer<typeof requestLogQuerySchema>;

export const requestLogRoutes = {
  list: {
    method: 'get',
    path: '/v1/developer/request-logs',
    operationId: 'requestLogs.list',
    summary:
      "The tenant's requests in the environment of the credential, newest first (kept for a limited number of days). Filters other than correlationId, from and to test at most 10,000 records a request: a page may come back short, even empty, with a nextCursor that goes on",
    surface: 'tenant',
    service: 'gateway',
    scope: 'request_logs:read',
    query: requestLogQuerySchema,
    success: { status: 200, schema: pageSchema(requestLogSchema) },
  },
} as const satisfies Record<string, RouteContract>;

export const REQUEST_LOG_ROUTES: RouteContract[] = Object.values(requestLogRoutes);
