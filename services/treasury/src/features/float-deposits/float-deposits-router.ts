import { createFloatDepositBodySchema, floatDepositQuerySchema } from '@wallet/contracts';
import { correlationIdOf, errorResponse, idempotencyOf, jsonResponse, parseOrThrow, storeFinalResponse, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { FloatDepositsService } from './float-deposits-service';

/** `/v1/admin/money/float-deposits*`: the gateway already required the route's scope; the tenant and environment come from its token. */
export function floatDepositsRouter(deposits: FloatDepositsService, idempotencyGuard: RequestHandler): Router {
  const router = Router();

  // The statement that records the deposit also remembers a 202 pending answer; the 201 or the
  // refusal replaces it where the ledger's outcome is recorded: a replay is what the client got.
  router.post('/v1/admin/money/float-deposits', idempotencyGuard, async (request, response) => {
    const scope = tenantScopeOf(response);
    const key = idempotencyOf(response);
    if (!key) throw new Error('POST /v1/admin/money/float-deposits runs only under a required Idempotency-Key');
    const body = parseOrThrow(createFloatDepositBodySchema, request.body);
    const created = await deposits.create(scope, body, {
      pending: (deposit) => key.completionStatement(jsonResponse(202, deposit)),
      completed: (deposit) => {
        const answer = jsonResponse(201, deposit);
        return { statement: key.finalAnswerStatement(answer), answered: () => key.answered(answer) };
      },
      rememberRefusal: async (tx, refusal) => {
        await storeFinalResponse(tx, key.claim, errorResponse(refusal, correlationIdOf(response)), { replaceCompleted: true });
      },
    });
    response.status(created.status).json(created.deposit);
  });

  router.get('/v1/admin/money/float-deposits', async (request, response) => {
    response.json(await deposits.list(tenantScopeOf(response), parseOrThrow(floatDepositQuerySchema, request.query, 'query')));
  });

  router.get('/v1/admin/money/float-deposits/:id', async (request, response) => {
    response.json(await deposits.get(tenantScopeOf(response), request.params.id));
  });

  return router;
}
