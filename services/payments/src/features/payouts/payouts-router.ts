import { approvePayoutBodySchema, createPayoutBodySchema, payoutCaseQuerySchema, rejectPayoutBodySchema } from '@wallet/contracts';
import { claimsOf, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { commandAnswersOf, decisionAnswersOf, sendCommandResult } from '@wallet/money-commands';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { PayoutsService } from './payouts-service';

/** `/v1/payouts*`: the gateway already required the route's scope; the tenant and environment come from its token. */
export function payoutsRouter(payouts: PayoutsService, guards: { create: RequestHandler; decide: RequestHandler }): Router {
  const router = Router();

  // As for transfers: the statement that records the case remembers a 202 pending answer; the
  // 201 or the refusal replaces it where the ledger's answer to the hold is recorded.
  router.post('/v1/payouts', guards.create, async (request, response) => {
    const scope = tenantScopeOf(response);
    const answers = commandAnswersOf(response, 'POST /v1/payouts');
    const body = parseOrThrow(createPayoutBodySchema, request.body);
    sendCommandResult(response, await payouts.create(scope, claimsOf(response), body, answers));
  });

  router.get('/v1/payouts/cases', async (request, response) => {
    response.json(await payouts.list(tenantScopeOf(response), parseOrThrow(payoutCaseQuerySchema, request.query, 'query')));
  });

  router.get('/v1/payouts/cases/:id', async (request, response) => {
    response.json(await payouts.get(tenantScopeOf(response), request.params.id));
  });

  router.post('/v1/payouts/:id/approve', guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const body = parseOrThrow(approvePayoutBodySchema, request.body);
    const decided = await payouts.approve(tenantScopeOf(response), claimsOf(response), request.params.id, body, decisionAnswersOf(response));
    response.status(decided.status).json(decided.shown);
  });

  router.post('/v1/payouts/:id/reject', guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const body = parseOrThrow(rejectPayoutBodySchema, request.body);
    const decided = await payouts.reject(tenantScopeOf(response), claimsOf(response), request.params.id, body, decisionAnswersOf(response));
    response.status(decided.status).json(decided.shown);
  });

  return router;
}
