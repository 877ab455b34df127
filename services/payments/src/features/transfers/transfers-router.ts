import { createTransferBodySchema, transferQuerySchema, transferRoutes } from '@wallet/contracts';
import { moneyCommandRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { TransfersService } from './transfers-service';

/** `/v1/transfers*`. */
export function transfersRouter(transfers: TransfersService, idempotencyGuard: RequestHandler): Router {
  const { create, list, get } = transferRoutes;
  const schemas = { create: createTransferBodySchema, query: transferQuerySchema };
  return moneyCommandRouter(transfers, { create, list, get, schemas }, idempotencyGuard);
}
