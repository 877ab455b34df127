import { createTenantBodySchema } from '@wallet/contracts';
import { parseOrThrow, requireSystem } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { TenantsService } from './tenants-service';

/**
 * The platform operator's tenant routes; the gateway reaches them with a system token. An
 * Idempotency-Key on the creation (`remember`) makes a retry replay its first answer.
 */
export function tenantsRouter(tenants: TenantsService, remember: RequestHandler): Router {
  const router = Router();

  router.post('/v1/tenants', remember, async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(createTenantBodySchema, request.body);
    response.status(201).json(await tenants.create(body));
  });

  router.get('/v1/tenants/:id', async (request, response) => {
    requireSystem(response);
    response.json(await tenants.get(request.params.id));
  });

  return router;
}
