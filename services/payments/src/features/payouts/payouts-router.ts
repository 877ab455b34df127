import {
  approvePayoutBodySchema,
  createPayoutBodySchema,
  payoutCaseQuerySchema,
  payoutRoutes,
  rejectPayoutBodySchema,
} from '@wallet/contracts';
import { makerCheckerRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { PayoutsService } from './payouts-service';

/** `/v1/payouts*`. */
export function payoutsRouter(payouts: PayoutsService, guards: { create: RequestHandler; decide: RequestHandler }): Router {
  const schemas = { create: createPayoutBodySchema, query: payoutCaseQuerySchema };
  const decisionSchemas = { approve: approvePayoutBodySchema, reject: rejectPayoutBodySchema };
  return makerCheckerRouter(payouts, { ...payoutRoutes, schemas, decisionSchemas }, guards);
}
