import { authenticateSecretBodySchema } from '@wallet/contracts';
import { parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import type { ApiKeysService } from './api-keys-service';

/**
 * The gateway's two key lookups, for a system internal token only. A key identity will not
 * vouch for answers 401 INVALID_API_KEY, API_KEY_REVOKED or API_KEY_EXPIRED, which the
 * gateway passes on to its client unchanged.
 */
export function apiKeyAuthRouter(keys: ApiKeysService): Router {
  const router = Router();

  router.post('/internal/v1/api-keys/authenticate-secret', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(authenticateSecretBodySchema, request.body);
    response.json(await keys.authenticateSecret(body.key));
  });

  router.get('/internal/v1/api-keys/:keyId/signing-material', async (request, response) => {
    requireSystem(response);
    response.json(await keys.signingMaterial(request.params.keyId));
  });

  return router;
}
