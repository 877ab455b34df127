import {
  bankSlipBodySchema,
  depositQuerySchema,
  depositRoutes,
  momoWebhookBodySchema,
  reopenDepositBodySchema,
  verifyDepositBodySchema,
} from '@wallet/contracts';
import { claimsOf, idempotencyOf, jsonResponse, mountRoute, parseOrThrow, tenantScopeOf } from '@wallet/kit';
import { type RequestHandler, Router } from 'express';
import type { DepositsService } from './deposits-service';

/**
 * `/v1/deposits*`. The webhook is public (the gateway forwards it with a public-surface token):
 * its provider signature is its credential, and its tenant is the wallet's. The other routes act
 * in the tenant and environment of their token.
 */
export function depositsRouter(deposits: DepositsService, idempotencyGuard: RequestHandler): Router {
  const router = Router();

  mountRoute(router, depositRoutes.momoWebhook, async (request, response) => {
    claimsOf(response);
    const body = parseOrThrow(momoWebhookBodySchema, request.body);
    const outcome = await deposits.receiveMomoWebhook(body);
    response.status(outcome.status).json(outcome.deposit);
  });

  // An optional Idempotency-Key: the slip and its remembered answer commit together.
  mountRoute(router, depositRoutes.bankSlip, idempotencyGuard, async (request, response) => {
    const scope = tenantScopeOf(response);
    const key = idempotencyOf(response);
    const body = parseOrThrow(bankSlipBodySchema, request.body);
    const deposit = await deposits.submitSlip(scope, body, key ? (tx, created) => key.complete(tx, jsonResponse(201, created)) : undefined);
    response.status(201).json(deposit);
  });

  mountRoute(router, depositRoutes.list, async (request, response) => {
    response.json(await deposits.list(tenantScopeOf(response), parseOrThrow(depositQuerySchema, request.query, 'query')));
  });

  mountRoute(router, depositRoutes.get, async (request, response) => {
    response.json(await deposits.get(tenantScopeOf(response), request.params.id));
  });

  mountRoute(router, depositRoutes.verify, async (request, response) => {
    const scope = tenantScopeOf(response);
    const { actorId } = parseOrThrow(verifyDepositBodySchema, request.body);
    const deposit = await deposits.verify(scope, claimsOf(response), request.params.id, actorId);
    // Credited but not yet posted by the ledger: accepted, not done.
    response.status(deposit.awaitingLedger ? 202 : 200).json(deposit);
  });

  mountRoute(router, depositRoutes.reopen, async (request, response) => {
    const body = parseOrThrow(reopenDepositBodySchema, request.body);
    response.json(await deposits.reopen(tenantScopeOf(response), claimsOf(response), request.params.id, body));
  });

  return router;
}
