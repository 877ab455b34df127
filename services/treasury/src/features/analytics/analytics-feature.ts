import { analyticsRoutes } from '@wallet/contracts';
import { type Features, parseOrThrow, requireSystem, type ServiceConfig, type ServiceParts, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import type { peersConfigShape } from '../../peers';
import { TREASURY_TOPOLOGY } from '../../topology';
import { startAnalyticsConsumer } from './analytics-consumer';
import { AnalyticsService } from './analytics-service';
import { requestErrorsClient } from './request-errors-client';

/**
 * Analytics: the read models fed by the ledger's entries-posted events, and the two routes
 * reading them. The gateway already required analytics:read (tenant) or the system key.
 */
export async function startAnalytics(
  parts: ServiceParts<ServiceConfig<Pick<typeof peersConfigShape, 'GATEWAY_INTERNAL_URL' | 'TREASURY_GATEWAY_TIMEOUT_MS'>>>,
): Promise<Features> {
  const { config, db, broker, logger, metrics } = parts;
  const consumer = await startAnalyticsConsumer({ broker, db, logger, metrics, queue: TREASURY_TOPOLOGY.analytics.queue });
  const requestErrors = requestErrorsClient({
    baseUrl: config.GATEWAY_INTERNAL_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.TREASURY_GATEWAY_TIMEOUT_MS,
    logger,
  });
  const analytics = new AnalyticsService(db, requestErrors);
  const router = Router();
  router.get(analyticsRoutes.tenant.path, async (request, response) => {
    const scope = tenantScopeOf(response);
    response.json(await analytics.tenant(scope, parseOrThrow(analyticsRoutes.tenant.query, request.query, 'query')));
  });
  router.get(analyticsRoutes.system.path, async (request, response) => {
    requireSystem(response);
    response.json(await analytics.system(parseOrThrow(analyticsRoutes.system.query, request.query, 'query')));
  });
  return { routes: (app) => app.use(router), stop: () => consumer.stop() };
}
