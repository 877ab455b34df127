import {
  balanceAtQuerySchema,
  createWalletBodySchema,
  statementQuerySchema,
  walletQuerySchema,
  walletStatusChangeBodySchema,
  type WalletStatus,
} from '@wallet/contracts';
import { claimsOf, idempotencyOf, jsonResponse, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { WalletStatusService } from './wallet-status-service';
import type { WalletsService } from './wallets-service';

/**
 * `/v1/wallets*`: the gateway already required the route's scope; the tenant and environment come
 * from its token. `/v1/system/wallets/{walletId}` is the platform operator's read of any tenant's wallet.
 */
export function walletsRouter(wallets: WalletsService, statuses: WalletStatusService, idempotencyGuard: RequestHandler): Router {
  const router = Router();

  // An optional Idempotency-Key: with one, the wallet and its remembered answer commit together,
  // so a retry replays the creation instead of meeting 409 WALLET_EXISTS.
  router.post('/v1/wallets', idempotencyGuard, async (request, response) => {
    const scope = tenantScopeOf(response);
    const key = idempotencyOf(response);
    const body = parseOrThrow(createWalletBodySchema, request.body);
    const wallet = await wallets.create(scope, body, key ? (tx, created) => key.complete(tx, jsonResponse(201, created)) : undefined);
    response.status(201).json(wallet);
  });

  router.get('/v1/wallets', async (request, response) => {
    const scope = tenantScopeOf(response);
    response.json(await wallets.list(scope, parseOrThrow(walletQuerySchema, request.query, 'query')));
  });

  router.get('/v1/wallets/:id', async (request, response) => {
    response.json(await wallets.get(tenantScopeOf(response), request.params.id));
  });

  router.get('/v1/system/wallets/:walletId', async (request, response) => {
    requireSystem(response);
    response.json(await wallets.getAcrossTenants(request.params.walletId));
  });

  router.get('/v1/wallets/:id/entries', async (request, response) => {
    const scope = tenantScopeOf(response);
    response.json(await wallets.entries(scope, request.params.id, parseOrThrow(statementQuerySchema, request.query, 'query')));
  });

  // The wallet before the query: another tenant's wallet is 404 whatever the query says.
  router.get('/v1/wallets/:id/balance', async (request, response) => {
    const scope = tenantScopeOf(response);
    const wallet = await wallets.require(scope, request.params.id);
    const { at } = parseOrThrow(balanceAtQuerySchema, request.query, 'query');
    response.json(await wallets.balanceAt(scope, wallet, at));
  });

  const changeStatus = (toStatus: WalletStatus) => async (request: Request<{ id: string }>, response: Response) => {
    const caller = { scope: tenantScopeOf(response), claims: claimsOf(response) };
    const { reason } = parseOrThrow(walletStatusChangeBodySchema, request.body);
    const wallet = await statuses.change(caller, request.params.id, toStatus, reason);
    response.json(await wallets.presentOne(wallet));
  };
  router.post('/v1/wallets/:id/freeze', changeStatus('frozen'));
  router.post('/v1/wallets/:id/unfreeze', changeStatus('active'));

  return router;
}
