import { createFloatDepositBodySchema, floatDepositQuerySchema } from '@wallet/contracts';
import { parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { commandAnswersOf, sendCommandResult } from '@wallet/money-commands';
import { type RequestHandler, Router } from 'express';
import type { FloatDepositsService } from './float-deposits-service';

/** `/v1/admin/money/float-deposits*`: the gateway already required the route's scope; the tenant and environment come from its token. */
export function floatDepositsRouter(deposits: FloatDepositsService, idempotencyGuard: RequestHandler): Router {
  const router = Router();

  // The statement that records the deposit also remembers a 202 pending answer; the 201 or the
  // refusal replaces it where the ledger's outcome is recorded: a replay is what the client got.
  router.post('/v1/admin/money/float-deposits', idempotencyGuard, async (request, response) => {
    const scope = tenantScopeOf(response);
    const answers = commandAnswersOf(response, 'POST /v1/admin/money/float-deposits');
    const body = parseOrThrow(createFloatDepositBodySchema, request.body);
    sendCommandResult(response, await deposits.create(scope, body, answers));
  });

  router.get('/v1/admin/money/float-deposits', async (request, response) => {
    response.json(await deposits.list(tenantScopeOf(response), parseOrThrow(floatDepositQuerySchema, request.query, 'query')));
  });

  router.get('/v1/admin/money/float-deposits/:id', async (request, response) => {
    response.json(await deposits.get(tenantScopeOf(response), request.params.id));
  });

  return router;
}
