import { createTenantBodySchema } from '@wallet/contracts';
import { parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import type { TenantsService } from './tenants-service';

/** The platform operator's tenant routes; the gateway reaches them with a system token. */
export function tenantsRouter(tenants: TenantsService): Router {
  const router = Router();

  router.post('/v1/tenants', async (request, response) => {
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
