import { createTransferReversalBodySchema, pageQuerySchema, transferRoutes } from '@wallet/contracts';
import { mountRoute, parseOrThrow, routeName, tenantScopeOf } from '@wallet/kit';
import { commandAnswersOf, sendCommandResult } from '@wallet/money-commands';
import { type RequestHandler, Router } from 'express';
import type { TransferReversals } from './transfer-reversals';

/** `/v1/transfers/{id}/reversals`: a POST's Idempotency-Key is written by the statement that records the reversal, as a transfer's is. */
export function transferReversalsRouter(reversals: TransferReversals, idempotencyGuard: RequestHandler): Router {
  const router = Router();
  mountRoute(router, transferRoutes.reverse, idempotencyGuard, async (request, response) => {
    const answers = commandAnswersOf(response, routeName(transferRoutes.reverse));
    const body = parseOrThrow(createTransferReversalBodySchema, request.body);
    sendCommandResult(response, await reversals.create(tenantScopeOf(response), request.params.id, body, answers));
  });
  mountRoute(router, transferRoutes.listReversals, async (request, response) => {
    response.json(await reversals.list(tenantScopeOf(response), request.params.id, parseOrThrow(pageQuerySchema, request.query, 'query')));
  });
  return router;
}
