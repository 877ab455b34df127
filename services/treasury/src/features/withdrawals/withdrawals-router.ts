import {
  approveWithdrawalBodySchema,
  createWithdrawalBodySchema,
  rejectWithdrawalBodySchema,
  withdrawalQuerySchema,
  withdrawalRoutes,
} from '@wallet/contracts';
import { makerCheckerRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { WithdrawalsService } from './withdrawals-service';

/** `/v1/admin/money/withdrawals*`. */
export function withdrawalsRouter(withdrawals: WithdrawalsService, guards: { create: RequestHandler; decide: RequestHandler }): Router {
  const schemas = { create: createWithdrawalBodySchema, query: withdrawalQuerySchema };
  const decisionSchemas = { approve: approveWithdrawalBodySchema, reject: rejectWithdrawalBodySchema };
  return makerCheckerRouter(withdrawals, { ...withdrawalRoutes, schemas, decisionSchemas }, guards);
}
