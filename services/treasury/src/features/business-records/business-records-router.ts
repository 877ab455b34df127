import { type BusinessRecordSource, finishedRecordsQuerySchema, recordLookupBodySchema } from '@wallet/contracts';
import { AppError, parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';

/**
 * Treasury's records for payments' reconciliation (check 3): internal only, system token, never
 * routed by the gateway. The scope travels explicitly, as in the ledger's journal reads.
 */
export function businessRecordsRouter(sources: readonly BusinessRecordSource[]): Router {
  const byType = new Map(sources.map((source) => [source.referenceType, source]));
  const sourceOf = (referenceType: string): BusinessRecordSource => {
    const source = byType.get(referenceType);
    if (!source) throw new AppError('NOT_FOUND', `Treasury keeps no records of type ${referenceType}`);
    return source;
  };
  const router = Router();

  router.get('/internal/v1/business-records', (_request, response) => {
    requireSystem(response);
    response.json({ data: [...byType.keys()] });
  });

  router.get('/internal/v1/business-records/:referenceType/finished', async (request, response) => {
    requireSystem(response);
    const source = sourceOf(request.params.referenceType);
    const query = parseOrThrow(finishedRecordsQuerySchema, request.query, 'query');
    response.json(await source.finishedPage({ tenantId: query.tenantId, environment: query.environment }, { cursor: query.cursor ?? null, limit: query.limit }));
  });

  router.post('/internal/v1/business-records/:referenceType/lookup', async (request, response) => {
    requireSystem(response);
    const source = sourceOf(request.params.referenceType);
    const body = parseOrThrow(recordLookupBodySchema, request.body);
    const scope = body.tenantId !== undefined && body.environment !== undefined ? { tenantId: body.tenantId, environment: body.environment } : null;
    response.json({ data: await source.byIds(scope, body.ids) });
  });

  return router;
}
