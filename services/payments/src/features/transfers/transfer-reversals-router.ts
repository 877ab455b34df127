import { createTransferReversalBodySchema, pageQuerySchema } from '@wallet/contracts';
import { parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { commandAnswersOf, sendCommandResult } from '@wallet/money-commands';
import { type Request, type RequestHandler, Router } from 'express';
import type { TransferReversals } from './transfer-reversals';

/** `/v1/transfers/{id}/reversals`: a POST's Idempotency-Key is written by the statement that records the reversal, as a transfer's is. */
export function transferReversalsRouter(reversals: TransferReversals, idempotencyGuard: RequestHandler): Router {
  const router = Router();
  router.post('/v1/transfers/:id/reversals', idempotencyGuard, async (request: Request<{ id: string }>, response) => {
    const answers = commandAnswersOf(response, 'POST /v1/transfers/{id}/reversals');
    const body = parseOrThrow(createTransferReversalBodySchema, request.body);
    sendCommandResult(response, await reversals.create(tenantScopeOf(response), request.params.id, body, answers));
  });
  router.get('/v1/transfers/:id/reversals', async (request, response) => {
    response.json(await reversals.list(tenantScopeOf(response), request.params.id, parseOrThrow(pageQuerySchema, request.query, 'query')));
  });
  return router;
}
