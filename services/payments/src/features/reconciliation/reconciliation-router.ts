import { pageQuerySchema, type ReconciliationRun, reconciliationResultSchema, type ReconciliationRunSummary } from '@wallet/contracts';
import { cursorFields, type Db, decodeCursor, encodeCursor, notFound, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import { findRun, listRuns, type StoredReconciliationRun } from './reconciliation-runs-store';
import type { ReconciliationFullRuns } from './reconciliation-full-runs';
import type { ReconciliationService } from './reconciliation-service';

function summary(run: StoredReconciliationRun): ReconciliationRunSummary {
  return {
    id: run.id,
    roundAt: run.roundAt.toISOString(),
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    status: run.status,
    mismatches: run.mismatchCounts,
    error: run.error,
  };
}

/**
 * `/v1/admin/reconciliation` (the gateway already required analytics:read) and its system twin
 * across every tenant; `.../runs` starts a full run, `.../runs/{id}` follows one (and, on the
 * system surface, reads what the schedule recorded).
 */
export function reconciliationRouter(reconciliation: ReconciliationService, fullRuns: ReconciliationFullRuns, db: Db): Router {
  const router = Router();

  // Full runs from zero, in the background: 202 with the run to follow.
  router.post('/v1/admin/reconciliation/runs', async (_request, response) => {
    response.status(202).json(await fullRuns.start(tenantScopeOf(response)));
  });

  router.get('/v1/admin/reconciliation/runs/:id', async (request, response) => {
    const run = await fullRuns.find(request.params.id, tenantScopeOf(response));
    if (!run) throw notFound('RECONCILIATION_RUN_NOT_FOUND', 'No such reconciliation run');
    response.json(run);
  });

  router.post('/v1/system/reconciliation/runs', async (_request, response) => {
    requireSystem(response);
    response.status(202).json(await fullRuns.start(null));
  });

  router.get('/v1/admin/reconciliation', async (_request, response) => {
    response.json(await reconciliation.run(tenantScopeOf(response)));
  });

  router.get('/v1/system/reconciliation', async (_request, response) => {
    requireSystem(response);
    response.json(await reconciliation.run(null));
  });

  router.get('/v1/system/reconciliation/runs', async (request, response) => {
    requireSystem(response);
    const query = parseOrThrow(pageQuerySchema, request.query, 'query');
    const position = decodeCursor(query.cursor, { id: cursorFields.key });
    const rows = await listRuns(db, { limit: query.limit, beforeId: position?.id });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    response.json({ data: page.map(summary), nextCursor: rows.length > query.limit && last ? encodeCursor({ id: last.id }) : null });
  });

  router.get('/v1/system/reconciliation/runs/:id', async (request, response) => {
    requireSystem(response);
    const run = await findRun(db, request.params.id);
    if (!run) {
      const full = await fullRuns.find(request.params.id, null);
      if (!full) throw notFound('RECONCILIATION_RUN_NOT_FOUND', 'No such reconciliation run');
      response.json(full);
      return;
    }
    const body: ReconciliationRun = { ...summary(run), result: run.result === null ? null : reconciliationResultSchema.parse(run.result) };
    response.json(body);
  });

  return router;
}
