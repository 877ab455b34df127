import { requireSystem, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import type { ReconciliationService } from './reconciliation-service';

/** `/v1/admin/reconciliation` (the gateway already required analytics:read) and its system twin across every tenant. */
export function reconciliationRouter(reconciliation: ReconciliationService): Router {
  const router = Router();

  router.get('/v1/admin/reconciliation', async (_request, response) => {
    response.json(await reconciliation.run(tenantScopeOf(response)));
  });

  router.get('/v1/system/reconciliation', async (_request, response) => {
    requireSystem(response);
    response.json(await reconciliation.run(null));
  });

  return router;
}
