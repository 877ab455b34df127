import { auditEventQuerySchema } from '@wallet/contracts';
import { type Db, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import { listAuditEvents } from './audit-store';

export function auditRouter(db: Db): Router {
  const router = Router();

  router.get('/v1/team/audit-events', async (request, response) => {
    const scope = tenantScopeOf(response);
    const query = parseOrThrow(auditEventQuerySchema, request.query, 'query');
    response.json(await listAuditEvents(db, scope, query));
  });

  return router;
}
