import { createFloatDepositBodySchema, floatDepositQuerySchema, treasuryRoutes } from '@wallet/contracts';
import { moneyCommandRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { FloatDepositsService } from './float-deposits-service';

/** `/v1/admin/money/float-deposits*`. */
export function floatDepositsRouter(deposits: FloatDepositsService, idempotencyGuard: RequestHandler): Router {
  const routes = { create: treasuryRoutes.createFloatDeposit, list: treasuryRoutes.listFloatDeposits, get: treasuryRoutes.getFloatDeposit };
  const schemas = { create: createFloatDepositBodySchema, query: floatDepositQuerySchema };
  return moneyCommandRouter(deposits, { ...routes, schemas }, idempotencyGuard);
}
