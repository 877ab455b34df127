import { createTransferBodySchema, transferQuerySchema } from '@wallet/contracts';
import { moneyCommandRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { TransfersService } from './transfers-service';

/** `/v1/transfers*`. */
export function transfersRouter(transfers: TransfersService, idempotencyGuard: RequestHandler): Router {
  const schemas = { create: createTransferBodySchema, query: transferQuerySchema };
  return moneyCommandRouter(transfers, { create: '/v1/transfers', list: '/v1/transfers', schemas }, idempotencyGuard);
}
