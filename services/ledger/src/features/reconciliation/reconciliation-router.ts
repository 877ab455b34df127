import { ledgerFullRunBodySchema } from '@wallet/contracts';
import { type Db, notFound, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { Router } from 'express';
import type { TenantScope } from '../journal/journal-scope';
import type { LedgerShards } from '../partitions/ledger-shards';
import { incrementalLedgerChecks } from './incremental-check';
import { ledgerResult, mergeLedgerResults } from './ledger-checks';
import type { ShardedFullRuns } from './sharded-full-runs';

async function checkNow(db: Db, scope: TenantScope | null, entriesMax: number) {
  const found = await incrementalLedgerChecks(db, scope, { entriesMax });
  return ledgerResult(found, found.coverage, new Date());
}

/**
 * Checks 1 and 2: run now from the checkpoints on (the tenant's route, on its shard, and the
 * operator's, on every shard), or from zero in the background (internal, asked by payments' full
 * runs; system token).
 */
export function ledgerReconciliationRouter(
  shards: LedgerShards,
  fullRuns: ShardedFullRuns,
  options: { incrementalEntriesMax: number },
): Router {
  const router = Router();

  router.get('/v1/ledger/reconciliation', async (_request, response) => {
    const scope = tenantScopeOf(response);
    response.json(await checkNow(await shards.dbOfTenant(scope.tenantId), scope, options.incrementalEntriesMax));
  });

  router.get('/v1/system/ledger/reconciliation', async (_request, response) => {
    requireSystem(response);
    response.json(mergeLedgerResults(await shards.each((db) => checkNow(db, null, options.incrementalEntriesMax))));
  });

  router.post('/internal/v1/reconciliation/full-runs', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(ledgerFullRunBodySchema, request.body ?? {});
    const scope =
      body.tenantId !== undefined && body.environment !== undefined ? { tenantId: body.tenantId, environment: body.environment } : null;
    response.status(202).json(await fullRuns.start(scope));
  });

  router.get('/internal/v1/reconciliation/full-runs/:id', async (request, response) => {
    requireSystem(response);
    const run = await fullRuns.find(request.params.id);
    if (!run) throw notFound('RECONCILIATION_RUN_NOT_FOUND', 'No such reconciliation run');
    response.json(run);
  });

  return router;
}
