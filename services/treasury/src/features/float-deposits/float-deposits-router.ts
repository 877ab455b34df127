import { createFloatDepositBodySchema, floatDepositQuerySchema } from '@wallet/contracts';
import { moneyCommandRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { FloatDepositsService } from './float-deposits-service';

/** `/v1/admin/money/float-deposits*`. */
export function floatDepositsRouter(deposits: FloatDepositsService, idempotencyGuard: RequestHandler): Router {
  const path = '/v1/admin/money/float-deposits';
  return moneyCommandRouter(
    deposits,
    { create: path, list: path, schemas: { create: createFloatDepositBodySchema, query: floatDepositQuerySchema } },
    idempotencyGuard,
  );
}
