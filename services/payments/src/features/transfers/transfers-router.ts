import { createTransferBodySchema, transferQuerySchema } from '@wallet/contracts';
import { parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { commandAnswersOf, sendCommandResult } from '@wallet/money-commands';
import { type RequestHandler, Router } from 'express';
import type { TransfersService } from './transfers-service';

/** `/v1/transfers*`: the gateway already required the route's scope; the tenant and environment come from its token. */
export function transfersRouter(transfers: TransfersService, idempotencyGuard: RequestHandler): Router {
  const router = Router();

  // Idempotency-Key required, and written by the statement that records the transfer (with a
  // 202 pending answer) rather than claimed before: the 201 or the refusal replaces that answer
  // where the ledger's outcome is recorded, so a replay is what the client got.
  router.post('/v1/transfers', idempotencyGuard, async (request, response) => {
    const scope = tenantScopeOf(response);
    const answers = commandAnswersOf(response, 'POST /v1/transfers');
    const body = parseOrThrow(createTransferBodySchema, request.body);
    sendCommandResult(response, await transfers.create(scope, body, answers));
  });

  router.get('/v1/transfers', async (request, response) => {
    response.json(await transfers.list(tenantScopeOf(response), parseOrThrow(transferQuerySchema, request.query, 'query')));
  });

  router.get('/v1/transfers/:id', async (request, response) => {
    response.json(await transfers.get(tenantScopeOf(response), request.params.id));
  });

  return router;
}
