import { claimsOf, type InternalClaims, mountRoute, parseOrThrow, routeName, type RouteSpec, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { z } from 'zod';
import { type CommandAnswers, type CommandResult, commandAnswersOf, sendCommandResult } from './money-command';
import type { RecordScope } from './money-command-statement';

/** What a money command feature's service answers, as its routes call it. */
export interface MoneyCommandService<CreateBody, Query, Shown> {
  create(scope: RecordScope, body: CreateBody, answers: CommandAnswers, claims: InternalClaims): Promise<CommandResult<Shown>>;
  list(scope: RecordScope, query: Query): Promise<unknown>;
  get(scope: RecordScope, id: string): Promise<Shown>;
}

/** Contracts' routes of a money command: `create` records one, `list` lists them, `get` shows one. */
export interface MoneyCommandRoutes<CreateBody, Query> {
  create: RouteSpec;
  list: RouteSpec;
  get: RouteSpec<`${string}/{id}`>;
  schemas: { create: z.ZodType<CreateBody>; query: z.ZodType<Query> };
}

/**
 * A money command feature's routes: the gateway already required each route's scope, and the
 * tenant and environment come from its token. The Idempotency-Key is required and written by the
 * statement that records the record (with a 202 pending answer) rather than claimed before: the
 * 201 or the refusal replaces that answer where the ledger's outcome is recorded, so a replay is
 * what the client got.
 */
export function moneyCommandRouter<CreateBody, Query, Shown>(
  service: MoneyCommandService<CreateBody, Query, Shown>,
  routes: MoneyCommandRoutes<CreateBody, Query>,
  createGuard: RequestHandler,
): Router {
  const router = Router();

  mountRoute(router, routes.create, createGuard, async (request, response) => {
    const answers = commandAnswersOf(response, routeName(routes.create));
    const body = parseOrThrow(routes.schemas.create, request.body);
    sendCommandResult(response, await service.create(tenantScopeOf(response), body, answers, claimsOf(response)));
  });

  mountRoute(router, routes.list, async (request, response) => {
    response.json(await service.list(tenantScopeOf(response), parseOrThrow(routes.schemas.query, request.query, 'query')));
  });

  mountRoute(router, routes.get, async (request, response) => {
    response.json(await service.get(tenantScopeOf(response), request.params.id));
  });

  return router;
}
