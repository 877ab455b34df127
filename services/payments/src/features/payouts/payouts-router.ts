import { approvePayoutBodySchema, createPayoutBodySchema, payoutCaseQuerySchema, rejectPayoutBodySchema } from '@wallet/contracts';
import { makerCheckerRouter } from '@wallet/money-commands';
import type { RequestHandler, Router } from 'express';
import type { PayoutsService } from './payouts-service';

/** `/v1/payouts*`. */
export function payoutsRouter(payouts: PayoutsService, guards: { create: RequestHandler; decide: RequestHandler }): Router {
  const schemas = { create: createPayoutBodySchema, query: payoutCaseQuerySchema };
  const decisionSchemas = { approve: approvePayoutBodySchema, reject: rejectPayoutBodySchema };
  return makerCheckerRouter(
    payouts,
    { create: '/v1/payouts', list: '/v1/payouts/cases', decide: '/v1/payouts', schemas, decisionSchemas },
    guards,
  );
}
