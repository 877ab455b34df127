import { createOrganizationBodySchema, pageQuerySchema, updateOrganizationBodySchema } from '@wallet/contracts';
import { claimsOf, parseOrThrow, requireSystem } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { OrganizationsService } from './organizations-service';

/**
 * The platform operator's view of tenants as organizations, each with its first admin. An
 * Idempotency-Key on the creation (`remember`) makes a retry replay its first answer.
 */
export function organizationsRouter(organizations: OrganizationsService, remember: RequestHandler): Router {
  const router = Router();

  router.post('/v1/system/organizations', remember, async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(createOrganizationBodySchema, request.body);
    response.status(201).json(await organizations.create(body));
  });

  router.get('/v1/system/organizations', async (request, response) => {
    requireSystem(response);
    const query = parseOrThrow(pageQuerySchema, request.query, 'query');
    response.json(await organizations.list(query));
  });

  router.get('/v1/system/organizations/:id', async (request, response) => {
    requireSystem(response);
    response.json(await organizations.get(request.params.id));
  });

  router.patch('/v1/system/organizations/:id', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(updateOrganizationBodySchema, request.body);
    response.json(await organizations.update(request.params.id, body, claimsOf(response)));
  });

  return router;
}
