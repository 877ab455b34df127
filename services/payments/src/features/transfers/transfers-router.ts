import { createTransferBodySchema, transferQuerySchema } from '@wallet/contracts';
import { correlationIdOf, errorResponse, idempotencyOf, jsonResponse, parseOrThrow, sendStoredResponse, storeFinalResponse, tenantScopeOf } from '@wallet/kit';
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
    const key = idempotencyOf(response);
    if (!key) throw new Error('POST /v1/transfers runs only under a required Idempotency-Key');
    const body = parseOrThrow(createTransferBodySchema, request.body);
    const created = await transfers.create(scope, body, {
      pending: (transfer) => ({ claim: key.claim, response: jsonResponse(202, transfer) }),
      written: () => key.written(),
      completed: (transfer) => {
        const answer = jsonResponse(201, transfer);
        return { answer: { claim: key.claim, response: answer }, answered: () => key.answered(answer) };
      },
      rememberRefusal: async (tx, refusal) => {
        await storeFinalResponse(tx, key.claim, errorResponse(refusal, correlationIdOf(response)), { replaceCompleted: true });
      },
    });
    // The bytes the key remembers, as they are: a replay is then exactly this answer.
    if (created.answer) sendStoredResponse(response, created.answer, { replayed: false });
    else response.status(created.status).json(created.transfer);
  });

  router.get('/v1/transfers', async (request, response) => {
    response.json(await transfers.list(tenantScopeOf(response), parseOrThrow(transferQuerySchema, request.query, 'query')));
  });

  router.get('/v1/transfers/:id', async (request, response) => {
    response.json(await transfers.get(tenantScopeOf(response), request.params.id));
  });

  return router;
}
