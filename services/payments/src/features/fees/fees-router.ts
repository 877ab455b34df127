import {
  addFeeRuleBodySchema,
  createSystemFeeScheduleBodySchema,
  createTenantFeeScheduleBodySchema,
  feeQuoteQuerySchema,
  feeScheduleListQuerySchema,
  idPattern,
  publishFeeScheduleBodySchema,
} from '@wallet/contracts';
import { AppError, claimsOf, parseOptionalBody, parseOrThrow, requireSystem, type TenantDirectory, tenantScopeOf } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { FeeCaller, FeesService } from './fees-service';

const SYSTEM_SCHEDULES = '/v1/system/organizations/:tenantId/fee-schedules';

/**
 * The platform operator's `/v1/system/organizations/{tenantId}/fee-schedules*`, the tenant's
 * `/v1/admin/fee-schedules*` (the gateway already required fees:read or fees:manage) and
 * `GET /v1/fees/quote`. An Idempotency-Key on a creation (`remember`) replays its first answer.
 */
export function feesRouter(fees: FeesService, tenants: Pick<TenantDirectory, 'require'>, remember: RequestHandler): Router {
  const router = Router();

  const tenantCaller = (response: Response): FeeCaller => ({
    tenantId: tenantScopeOf(response).tenantId,
    surface: 'tenant',
    claims: claimsOf(response),
  });

  // The operator names the tenant: one that does not exist is not found, before anything is stored for it.
  const systemCaller = async (tenantId: string, response: Response): Promise<FeeCaller> => {
    requireSystem(response);
    if (!idPattern('tenant').test(tenantId)) throw new AppError('TENANT_NOT_FOUND', 'No such organization');
    await tenants.require(tenantId);
    return { tenantId, surface: 'system', claims: claimsOf(response) };
  };

  router.post(SYSTEM_SCHEDULES, remember, async (request: Request<{ tenantId: string }>, response: Response) => {
    const caller = await systemCaller(request.params.tenantId, response);
    response.status(201).json(await fees.createSchedule(caller, parseOrThrow(createSystemFeeScheduleBodySchema, request.body)));
  });

  router.get(SYSTEM_SCHEDULES, async (request, response) => {
    const caller = await systemCaller(request.params.tenantId, response);
    response.json(await fees.listSchedules(caller.tenantId, parseOrThrow(feeScheduleListQuerySchema, request.query, 'query')));
  });

  router.get(`${SYSTEM_SCHEDULES}/:scheduleId`, async (request, response) => {
    const caller = await systemCaller(request.params.tenantId, response);
    response.json(await fees.getSchedule(caller.tenantId, request.params.scheduleId));
  });

  router.post(
    `${SYSTEM_SCHEDULES}/:scheduleId/rules`,
    remember,
    async (request: Request<{ tenantId: string; scheduleId: string }>, response: Response) => {
      const caller = await systemCaller(request.params.tenantId, response);
      response.status(201).json(await fees.addRule(caller, request.params.scheduleId, parseOrThrow(addFeeRuleBodySchema, request.body)));
    },
  );

  router.post(`${SYSTEM_SCHEDULES}/:scheduleId/publish`, async (request, response) => {
    const caller = await systemCaller(request.params.tenantId, response);
    response.json(await fees.publish(caller, request.params.scheduleId, parseOptionalBody(publishFeeScheduleBodySchema, request.body)));
  });

  router.get('/v1/admin/fee-schedules', async (request, response) => {
    const caller = tenantCaller(response);
    response.json(await fees.listSchedules(caller.tenantId, parseOrThrow(feeScheduleListQuerySchema, request.query, 'query')));
  });

  router.get('/v1/admin/fee-schedules/:id', async (request, response) => {
    response.json(await fees.getSchedule(tenantCaller(response).tenantId, request.params.id));
  });

  router.post('/v1/admin/fee-schedules', remember, async (request, response) => {
    const caller = tenantCaller(response);
    response.status(201).json(await fees.createSchedule(caller, parseOrThrow(createTenantFeeScheduleBodySchema, request.body)));
  });

  router.post('/v1/admin/fee-schedules/:id/rules', remember, async (request: Request<{ id: string }>, response: Response) => {
    const caller = tenantCaller(response);
    response.status(201).json(await fees.addRule(caller, request.params.id, parseOrThrow(addFeeRuleBodySchema, request.body)));
  });

  router.delete('/v1/admin/fee-schedules/:id/rules/:ruleId', async (request, response) => {
    response.json(await fees.removeRule(tenantCaller(response), request.params.id, request.params.ruleId));
  });

  router.post('/v1/admin/fee-schedules/:id/publish', async (request, response) => {
    const caller = tenantCaller(response);
    response.json(await fees.publish(caller, request.params.id, parseOptionalBody(publishFeeScheduleBodySchema, request.body)));
  });

  router.get('/v1/fees/quote', async (request, response) => {
    const { tenantId } = tenantScopeOf(response);
    response.json(await fees.quote(tenantId, parseOrThrow(feeQuoteQuerySchema, request.query, 'query')));
  });

  return router;
}
