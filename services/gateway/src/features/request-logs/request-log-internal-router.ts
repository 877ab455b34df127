import { environmentSchema, REQUEST_LOG_SUMMARY_PATH } from '@wallet/contracts';
import { AppError, claimsOf, daysMs, internalTokenMiddleware, parseOrThrow } from '@wallet/kit';
import { Router } from 'express';
import { z } from 'zod';
import type { RequestLogStore } from './request-log-store';

/** Requests are counted per UTC day (request_log_days), so a range's ends are midnights, UTC. */
const utcMidnightSchema = z.iso
  .datetime({ offset: true })
  .refine((instant) => Date.parse(instant) % daysMs(1) === 0, 'must be 00:00 UTC: requests are counted by UTC day');
const dayOf = (instant: string) => new Date(instant).toISOString().slice(0, 10);

const summaryQuerySchema = z
  .object({
    from: utcMidnightSchema,
    to: utcMidnightSchema,
    environment: environmentSchema,
    /** System tokens only: one tenant's requests; absent means every tenant's. */
    tenantId: z.string().min(1).max(64).optional(),
  })
  .refine((query) => Date.parse(query.from) < Date.parse(query.to), { path: ['from'], message: 'must be before to' });

/**
 * Internal routes of the gateway, for other services only: they carry an internal token signed
 * with the shared secret, like every service-to-service call. A tenant token reads its own
 * tenant and environment whatever the query says; only a system token may name another tenant
 * or ask for all of them.
 */
export function requestLogInternalRouter(store: RequestLogStore, internalTokenSecret: string): Router {
  const router = Router();
  router.use('/internal', internalTokenMiddleware(internalTokenSecret));
  router.get(REQUEST_LOG_SUMMARY_PATH, async (request, response) => {
    const query = parseOrThrow(summaryQuerySchema, request.query, 'query');
    const claims = claimsOf(response);
    let scope: { tenantId: string | null; environment: 'test' | 'live' };
    if (claims.surface === 'system') scope = { tenantId: query.tenantId ?? null, environment: query.environment };
    else if (claims.surface === 'tenant' && claims.tenantId && claims.environment)
      scope = { tenantId: claims.tenantId, environment: claims.environment };
    else throw new AppError('INSUFFICIENT_SCOPE', 'This route is for services acting as a tenant or the platform');
    response.json(await store.summarize(scope, { fromDay: dayOf(query.from), toDay: dayOf(query.to) }));
  });
  return router;
}
