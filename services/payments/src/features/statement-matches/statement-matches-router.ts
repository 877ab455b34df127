import {
  approveStatementMatchBodySchema,
  matchRuleBodySchema,
  proposeStatementMatchBodySchema,
  rejectStatementMatchBodySchema,
  statementMatchQuerySchema,
  statementMatchRoutes as routes,
} from '@wallet/contracts';
import { claimsOf, mountRoute, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { MatchSuggestions } from './match-suggestions';
import type { StatementMatchesService } from './statement-matches-service';

/** `/v1/reconciliation/matches*`, the suggestions and the match rule: the workbench's routes. */
export function statementMatchesRouter(matches: StatementMatchesService, suggestions: MatchSuggestions, remember: RequestHandler): Router {
  const router = Router();

  mountRoute(router, routes.propose, remember, async (request, response) => {
    const body = parseOrThrow(proposeStatementMatchBodySchema, request.body);
    response.status(201).json(await matches.propose(tenantScopeOf(response), claimsOf(response), body));
  });

  mountRoute(router, routes.list, async (request, response) => {
    response.json(await matches.list(tenantScopeOf(response), parseOrThrow(statementMatchQuerySchema, request.query, 'query')));
  });

  mountRoute(router, routes.approve, async (request, response) => {
    const { actorId } = parseOrThrow(approveStatementMatchBodySchema, request.body);
    const approved = await matches.approve(tenantScopeOf(response), claimsOf(response), request.params.id, actorId);
    // Approved and credited, but the ledger has not posted the credit yet: accepted, not done.
    response.status(approved.deposit.awaitingLedger ? 202 : 200).json(approved);
  });

  mountRoute(router, routes.reject, async (request, response) => {
    const body = parseOrThrow(rejectStatementMatchBodySchema, request.body);
    response.json(await matches.reject(tenantScopeOf(response), claimsOf(response), request.params.id, body));
  });

  mountRoute(router, routes.suggestions, async (request, response) => {
    const { limit } = parseOrThrow(routes.suggestions.query, request.query, 'query');
    response.json(await suggestions.suggest(tenantScopeOf(response), limit));
  });

  mountRoute(router, routes.getRule, async (_request, response) => {
    response.json(await suggestions.rule(tenantScopeOf(response)));
  });

  mountRoute(router, routes.setRule, async (request, response) => {
    const rule = parseOrThrow(matchRuleBodySchema, request.body);
    response.json(await suggestions.setRule(tenantScopeOf(response), claimsOf(response), rule));
  });

  return router;
}
