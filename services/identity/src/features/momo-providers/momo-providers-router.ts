import { createMomoProviderBodySchema, pageQuerySchema, rotateMomoProviderSecretBodySchema } from '@wallet/contracts';
import { claimsOf, parseOptionalBody, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { MomoProvidersService, ProviderCaller } from './momo-providers-service';

/**
 * `/v1/admin/momo-providers*` (the gateway already required providers:manage) and the payments
 * service's secret lookup. An Idempotency-Key on a registration or a rotation (`rememberSealed`:
 * the answer holds the webhook secret, so it is kept sealed) replays the first answer.
 */
export function momoProvidersRouter(providers: MomoProvidersService, rememberSealed: RequestHandler): Router {
  const router = Router();

  const callerOf = (response: Response): ProviderCaller => ({ tenantId: tenantScopeOf(response).tenantId, claims: claimsOf(response) });

  router.post('/v1/admin/momo-providers', rememberSealed, async (request, response) => {
    const caller = callerOf(response);
    response.status(201).json(await providers.create(caller, parseOrThrow(createMomoProviderBodySchema, request.body)));
  });

  router.get('/v1/admin/momo-providers', async (request, response) => {
    const caller = callerOf(response);
    response.json(await providers.list(caller, parseOrThrow(pageQuerySchema, request.query, 'query')));
  });

  router.get('/v1/admin/momo-providers/:id', async (request, response) => {
    response.json(await providers.get(callerOf(response), request.params.id));
  });

  router.post(
    '/v1/admin/momo-providers/:id/rotate-secret',
    rememberSealed,
    async (request: Request<{ id: string }>, response: Response) => {
      const caller = callerOf(response);
      response.json(
        await providers.rotateSecret(caller, request.params.id, parseOptionalBody(rotateMomoProviderSecretBodySchema, request.body)),
      );
    },
  );

  router.get('/internal/v1/tenants/:tenantId/momo-providers', async (request, response) => {
    requireSystem(response);
    response.json(await providers.secretsOfTenant(request.params.tenantId));
  });

  return router;
}
