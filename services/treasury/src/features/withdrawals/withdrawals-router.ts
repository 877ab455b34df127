import {
  approveWithdrawalBodySchema,
  createWithdrawalBodySchema,
  rejectWithdrawalBodySchema,
  withdrawalQuerySchema,
} from '@wallet/contracts';
import { makerCheckerRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { WithdrawalsService } from './withdrawals-service';

/** `/v1/admin/money/withdrawals*`. */
export function withdrawalsRouter(withdrawals: WithdrawalsService, guards: { create: RequestHandler; decide: RequestHandler }): Router {
  const schemas = { create: createWithdrawalBodySchema, query: withdrawalQuerySchema };
  const decisionSchemas = { approve: approveWithdrawalBodySchema, reject: rejectWithdrawalBodySchema };
  const path = '/v1/admin/money/withdrawals';
  return makerCheckerRouter(withdrawals, { create: path, list: path, decide: path, schemas, decisionSchemas }, guards);
}
