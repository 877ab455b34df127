import { claimsOf, type InternalClaims, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { z } from 'zod';
import { type DecisionAnswers, decisionAnswersOf, type DecisionResult } from './maker-checker';
import { type CommandAnswers, type CommandResult, commandAnswersOf, sendCommandResult } from './money-command';
import type { RecordScope } from './money-command-statement';

/** What a case type's service answers, as its routes call it. */
export interface CaseService<CreateBody, Query, Shown> {
  create(scope: RecordScope, claims: InternalClaims, body: CreateBody, answers: CommandAnswers): Promise<CommandResult<Shown>>;
  list(scope: RecordScope, query: Query): Promise<unknown>;
  get(scope: RecordScope, id: string): Promise<Shown>;
  approve(scope: RecordScope, claims: InternalClaims, id: string, body: { actorId: string }, answers: DecisionAnswers<Shown>): Promise<DecisionResult<Shown>>;
  reject(scope: RecordScope, claims: InternalClaims, id: string, body: { actorId: string; reason: string }, answers: DecisionAnswers<Shown>): Promise<DecisionResult<Shown>>;
}

export interface CaseRoutes<CreateBody, Query> {
  /** `POST` opens a case here. */
  create: string;
  /** `GET` lists cases here, and `GET <list>/:id` shows one. */
  list: string;
  /** `POST <decide>/:id/approve` and `/reject`. */
  decide: string;
  schemas: {
    create: z.ZodType<CreateBody>;
    query: z.ZodType<Query>;
    approve: z.ZodType<{ actorId: string }>;
    reject: z.ZodType<{ actorId: string; reason: string }>;
  };
}

/**
 * A case type's routes: the gateway already required each route's scope, and the tenant and
 * environment come from its token. As for every money command, the statement that records the
 * case remembers a 202 pending answer; the 201 or the refusal replaces it where the ledger's
 * answer to the hold is recorded.
 */
export function makerCheckerRouter<CreateBody, Query, Shown>(
  service: CaseService<CreateBody, Query, Shown>,
  routes: CaseRoutes<CreateBody, Query>,
  guards: { create: RequestHandler; decide: RequestHandler },
): Router {
  const router = Router();
  const { schemas } = routes;

  router.post(routes.create, guards.create, async (request, response) => {
    const answers = commandAnswersOf(response, `POST ${routes.create}`);
    const body = parseOrThrow(schemas.create, request.body);
    sendCommandResult(response, await service.create(tenantScopeOf(response), claimsOf(response), body, answers));
  });

  router.get(routes.list, async (request, response) => {
    response.json(await service.list(tenantScopeOf(response), parseOrThrow(schemas.query, request.query, 'query')));
  });

  router.get(`${routes.list}/:id`, async (request: Request<{ id: string }>, response: Response) => {
    response.json(await service.get(tenantScopeOf(response), request.params.id));
  });

  router.post(`${routes.decide}/:id/approve`, guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const decided = await service.approve(tenantScopeOf(response), claimsOf(response), request.params.id, parseOrThrow(schemas.approve, request.body), decisionAnswersOf(response));
    response.status(decided.status).json(decided.shown);
  });

  router.post(`${routes.decide}/:id/reject`, guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const decided = await service.reject(tenantScopeOf(response), claimsOf(response), request.params.id, parseOrThrow(schemas.reject, request.body), decisionAnswersOf(response));
    response.status(decided.status).json(decided.shown);
  });

  return router;
}
