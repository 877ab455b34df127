import { claimsOf, type InternalClaims, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { type DecisionAnswers, decisionAnswersOf, type DecisionResult } from './maker-checker';
import type { RecordScope } from './money-command-statement';
import { moneyCommandRouter, type MoneyCommandRoutes, type MoneyCommandService } from './money-command-router';

/** What a case type's service answers, as its routes call it: a money command's, and decisions. */
export interface CaseService<CreateBody, Query, Shown> extends MoneyCommandService<CreateBody, Query, Shown> {
  approve(
    scope: RecordScope,
    claims: InternalClaims,
    id: string,
    body: { actorId: string },
    answers: DecisionAnswers<Shown>,
  ): Promise<DecisionResult<Shown>>;
  reject(
    scope: RecordScope,
    claims: InternalClaims,
    id: string,
    body: { actorId: string; reason: string },
    answers: DecisionAnswers<Shown>,
  ): Promise<DecisionResult<Shown>>;
}

export interface CaseRoutes<CreateBody, Query> extends MoneyCommandRoutes<CreateBody, Query> {
  /** `POST <decide>/:id/approve` and `/reject`. */
  decide: string;
  decisionSchemas: {
    approve: z.ZodType<{ actorId: string }>;
    reject: z.ZodType<{ actorId: string; reason: string }>;
  };
}

/** A case type's routes: a money command's (the case and its hold), and the checker's two decisions. */
export function makerCheckerRouter<CreateBody, Query, Shown>(
  service: CaseService<CreateBody, Query, Shown>,
  routes: CaseRoutes<CreateBody, Query>,
  guards: { create: RequestHandler; decide: RequestHandler },
): Router {
  const router = moneyCommandRouter(service, routes, guards.create);
  const { decisionSchemas: schemas } = routes;

  router.post(`${routes.decide}/:id/approve`, guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const decided = await service.approve(
      tenantScopeOf(response),
      claimsOf(response),
      request.params.id,
      parseOrThrow(schemas.approve, request.body),
      decisionAnswersOf(response),
    );
    response.status(decided.status).json(decided.shown);
  });

  router.post(`${routes.decide}/:id/reject`, guards.decide, async (request: Request<{ id: string }>, response: Response) => {
    const decided = await service.reject(
      tenantScopeOf(response),
      claimsOf(response),
      request.params.id,
      parseOrThrow(schemas.reject, request.body),
      decisionAnswersOf(response),
    );
    response.status(decided.status).json(decided.shown);
  });

  return router;
}
