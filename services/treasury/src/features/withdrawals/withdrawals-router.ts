import { approveWithdrawalBodySchema, createWithdrawalBodySchema, rejectWithdrawalBodySchema, withdrawalQuerySchema } from '@wallet/contracts';
import { claimsOf, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { commandAnswersOf, decisionAnswersOf, sendCommandResult } from '@wallet/money-commands';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { WithdrawalsService } from './withdrawals-service';

/** `/v1/admin/money/withdrawals*`: the gateway already required the route's scope; the tenant and environment come from its token. */
export function withdrawalsRouter(withdrawals: WithdrawalsService, guards: { create: RequestHandler; decide: RequestHandler }): Router {
  const router = Router();

  // As for payouts: the statement that records the case remembers a 202 pending answer; the
  // 201 or the refusal replaces it where the ledger's answer to the hold is recorded.
  router.post('/v1/admin/money/withdrawals', guards.create, async (request, response) => {
    const scope = tenantScopeOf(response);
    const answers = commandAnswersOf(response, 'POST /v1/admin/money/withdrawals');
    const body = parseOrThrow(createWithdrawalBodySchema, request.body);
    sendCommandResult(response, await withdrawals.create(scope, claimsOf(response), body, answers));
  });

  router.get('/v1/admin/money/withdrawals', async (request, response) => {
    response.json(await withdrawals.list(tenantScopeOf(response), parseOrThrow(withdrawalQuerySchema, request.query, 'query')));
  });

  router.get('/v1/admin/money/withdrawals/:id', async (request, response) => {
    response.json(await withdrawals.get(tenantScopeOf(response), request.params.id));
  });

  router.post('/v1/admin/money/withdrawals/:id/approve', guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const body = parseOrThrow(approveWithdrawalBodySchema, request.body);
    const decided = await withdrawals.approve(tenantScopeOf(response), claimsOf(response), request.params.id, body, decisionAnswersOf(response));
    response.status(decided.status).json(decided.shown);
  });

  router.post('/v1/admin/money/withdrawals/:id/reject', guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const body = parseOrThrow(rejectWithdrawalBodySchema, request.body);
    const decided = await withdrawals.reject(tenantScopeOf(response), claimsOf(response), request.params.id, body, decisionAnswersOf(response));
    response.status(decided.status).json(decided.shown);
  });

  return router;
}
