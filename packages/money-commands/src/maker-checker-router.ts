import { claimsOf, type InternalClaims, mountRoute, parseOrThrow, type RouteSpec, tenantScopeOf } from '@wallet/kit';
import { approvalPolicyBodySchema } from '@wallet/contracts';
import type { RequestHandler, Router } from 'express';
import type { z } from 'zod';
import type { ApprovalPolicies } from './approval-policies';
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
  readonly policies: Pick<ApprovalPolicies, 'get' | 'replace'>;
}

/** Contracts' routes of a case type (`caseRoutes`): a money command's, and the checker's two decisions. */
export interface CaseRoutes<CreateBody, Query> extends MoneyCommandRoutes<CreateBody, Query> {
  approve: RouteSpec<`${string}/{id}/approve`>;
  reject: RouteSpec<`${string}/{id}/reject`>;
  getApprovalPolicy: RouteSpec;
  setApprovalPolicy: RouteSpec;
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

  mountRoute(router, routes.approve, guards.decide, async (request, response) => {
    const decided = await service.approve(
      tenantScopeOf(response),
      claimsOf(response),
      request.params.id,
      parseOrThrow(schemas.approve, request.body),
      decisionAnswersOf(response),
    );
    response.status(decided.status).json(decided.shown);
  });

  mountRoute(router, routes.reject, guards.decide, async (request, response) => {
    const decided = await service.reject(
      tenantScopeOf(response),
      claimsOf(response),
      request.params.id,
      parseOrThrow(schemas.reject, request.body),
      decisionAnswersOf(response),
    );
    response.status(decided.status).json(decided.shown);
  });

  mountRoute(router, routes.getApprovalPolicy, async (_request, response) => {
    response.json(await service.policies.get(tenantScopeOf(response)));
  });

  mountRoute(router, routes.setApprovalPolicy, async (request, response) => {
    const body = parseOrThrow(approvalPolicyBodySchema, request.body);
    response.json(await service.policies.replace(tenantScopeOf(response), claimsOf(response), body));
  });

  return router;
}
