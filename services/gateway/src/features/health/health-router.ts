import type { ReadinessCheck, ServiceMetrics } from '@wallet/kit';
import express from 'express';

/** /healthz (the process answers), /readyz (every check passes, else 503) and /metrics. */
export function healthRouter(options: { service: string; metrics: ServiceMetrics; readiness: ReadinessCheck[] }): express.Router {
  const router = express.Router();
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok', service: options.service });
  });
  router.get('/readyz', async (_request, response) => {
    const checks = await Promise.all(
      options.readiness.map(async ({ name, check }) => {
        try {
          await check();
          return { name, status: 'ok' as const };
        } catch (error) {
          return { name, status: 'down' as const, message: (error as Error).message };
        }
      }),
    );
    const ready = checks.every((check) => check.status === 'ok');
    response.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'down', service: options.service, checks });
  });
  router.get('/metrics', async (_request, response) => {
    response.setHeader('Content-Type', options.metrics.registry.contentType);
    response.send(await options.metrics.registry.metrics());
  });
  return router;
}
