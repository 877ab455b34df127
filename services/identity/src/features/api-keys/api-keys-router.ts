import { apiKeyListQuerySchema, createApiKeyBodySchema, rotateApiKeyBodySchema, updateApiKeyBodySchema } from '@wallet/contracts';
import { claimsOf, parseOptionalBody, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { type KeyCaller, tenantKeyCaller } from './api-key-rules';
import type { ApiKeysService } from './api-keys-service';

/**
 * `/v1/developer/api-keys*` for a tenant's keys and sessions (the gateway already required
 * api_keys:manage), and `/v1/tenants/{id}/api-keys*` for the platform operator. An
 * Idempotency-Key on a creation or a rotation (`rememberSealed`: the answer holds the secret
 * shown once, so it is kept sealed under the master key) replays the first answer.
 */
export function apiKeysRouter(keys: ApiKeysService, rememberSealed: RequestHandler): Router {
  const router = Router();

  const tenantCaller = (response: Response): KeyCaller => tenantKeyCaller(claimsOf(response), tenantScopeOf(response));
  const systemCaller = async (response: Response, tenantId: string): Promise<KeyCaller> => {
    requireSystem(response);
    return keys.systemCaller(claimsOf(response), tenantId);
  };

  router.get('/v1/developer/api-keys', async (request, response) => {
    const caller = tenantCaller(response);
    response.json(await keys.list(caller, parseOrThrow(apiKeyListQuerySchema, request.query, 'query')));
  });

  router.post('/v1/developer/api-keys', rememberSealed, async (request, response) => {
    const caller = tenantCaller(response);
    response.status(201).json(await keys.create(caller, parseOrThrow(createApiKeyBodySchema, request.body)));
  });

  router.get('/v1/developer/api-keys/:id', async (request, response) => {
    response.json(await keys.get(tenantCaller(response), request.params.id));
  });

  router.patch('/v1/developer/api-keys/:id', async (request, response) => {
    const caller = tenantCaller(response);
    response.json(await keys.update(caller, request.params.id, parseOrThrow(updateApiKeyBodySchema, request.body)));
  });

  router.post('/v1/developer/api-keys/:id/rotate', rememberSealed, async (request: Request<{ id: string }>, response: Response) => {
    const caller = tenantCaller(response);
    response.json(await keys.rotate(caller, request.params.id, parseOptionalBody(rotateApiKeyBodySchema, request.body)));
  });

  router.post('/v1/developer/api-keys/:id/revoke', async (request, response) => {
    response.json(await keys.revoke(tenantCaller(response), request.params.id));
  });

  router.get('/v1/tenants/:id/api-keys', async (request, response) => {
    const caller = await systemCaller(response, request.params.id);
    response.json(await keys.list(caller, parseOrThrow(apiKeyListQuerySchema, request.query, 'query')));
  });

  router.post('/v1/tenants/:id/api-keys', rememberSealed, async (request: Request<{ id: string }>, response: Response) => {
    const caller = await systemCaller(response, request.params.id);
    response.status(201).json(await keys.create(caller, parseOrThrow(createApiKeyBodySchema, request.body)));
  });

  router.post(
    '/v1/tenants/:id/api-keys/:keyId/rotate',
    rememberSealed,
    async (request: Request<{ id: string; keyId: string }>, response: Response) => {
      const caller = await systemCaller(response, request.params.id);
      response.json(await keys.rotate(caller, request.params.keyId, parseOptionalBody(rotateApiKeyBodySchema, request.body)));
    },
  );

  router.post('/v1/tenants/:id/api-keys/:keyId/revoke', async (request, response) => {
    const caller = await systemCaller(response, request.params.id);
    response.json(await keys.revoke(caller, request.params.keyId));
  });

  return router;
}
