import { claimsOf, type InternalClaims, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { z } from 'zod';
import { type CommandAnswers, type CommandResult, commandAnswersOf, sendCommandResult } from './money-command';
import type { RecordScope } from './money-command-statement';

/** What a money command feature's service answers, as its routes call it. */
export interface MoneyCommandService<CreateBody, Query, Shown> {
  create(scope: RecordScope, body: CreateBody, answers: CommandAnswers, claims: InternalClaims): Promise<CommandResult<Shown>>;
  list(scope: RecordScope, query: Query): Promise<unknown>;
  get(scope: RecordScope, id: string): Promise<Shown>;
}

export interface MoneyCommandRoutes<CreateBody, Query> {
  /** `POST` creates a record here. */
  create: string;
  /** `GET` lists records here, and `GET <list>/:id` shows one. */
  list: string;
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

  router.post(routes.create, createGuard, async (request, response) => {
    const answers = commandAnswersOf(response, `POST ${routes.create}`);
    const body = parseOrThrow(routes.schemas.create, request.body);
    sendCommandResult(response, await service.create(tenantScopeOf(response), body, answers, claimsOf(response)));
  });

  router.get(routes.list, async (request, response) => {
    response.json(await service.list(tenantScopeOf(response), parseOrThrow(routes.schemas.query, request.query, 'query')));
  });

  router.get(`${routes.list}/:id`, async (request: Request<{ id: string }>, response: Response) => {
    response.json(await service.get(tenantScopeOf(response), request.params.id));
  });

  return router;
}
