import { z } from 'zod';
import { pageQuerySchema, pageSchema } from '../common';
import { idSchema } from '../ids';
import { amountInputSchema, integerInputSchema } from '../json';
import { currencyCodeSchema } from '../money';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

/** What a fee rule charges for (docs/decisions/fees.md). */
export const FEE_TRANSACTION_TYPES = ['deposit', 'transfer', 'payout', 'withdrawal'] as const;
export const feeTransactionTypeSchema = z.enum(FEE_TRANSACTION_TYPES);
export type FeeTransactionType = z.infer<typeof feeTransactionTypeSchema>;

export const FEE_SCHEDULE_STATUSES = ['draft', 'published'] as const;
export const feeScheduleStatusSchema = z.enum(FEE_SCHEDULE_STATUSES);
export type FeeScheduleStatus = z.infer<typeof feeScheduleStatusSchema>;

/** `system`: made by the platform operator, who set its commission; `tenant`: made by the tenant, commission inherited. */
export const feeScheduleOriginSchema = z.enum(['system', 'tenant']);
export type FeeScheduleOrigin = z.infer<typeof feeScheduleOriginSchema>;

/** The platform's share of each fee, in basis points: 0-10000 (100 %). */
export const platformCommissionBpsSchema = integerInputSchema({ min: 0, max: 10_000 });

const scheduleNameSchema = plainTextSchema(200);

/**
 * The platform operator's schedule (`POST /v1/system/organizations/{tenantId}/fee-schedules`).
 * `isDefault: true` asks for the schedule to become the tenant's default when it is published
 * (a draft is never the default); `publish {makeDefault}` may still decide otherwise.
 */
export const createSystemFeeScheduleBodySchema = z.object({
  name: scheduleNameSchema,
  isDefault: z.boolean().default(false),
  platformCommissionBps: platformCommissionBpsSchema,
});
export type CreateSystemFeeScheduleBody = z.infer<typeof createSystemFeeScheduleBodySchema>;

/**
 * A tenant's own schedule (`POST /v1/admin/fee-schedules`). Tenants never set the platform
 * commission: any field besides these, platformCommissionBps included, is 400 VALIDATION_ERROR.
 * The schedule carries the commission of the tenant's default schedule (0 without one), taken
 * again when it is published.
 */
export const createTenantFeeScheduleBodySchema = z.strictObject({
  name: scheduleNameSchema,
  isDefault: z.boolean().default(false),
  /**
   * Another schedule of the tenant (draft or published) whose rules the draft starts with, copied
   * in the same transaction; unknown or another tenant's: 404 FEE_SCHEDULE_NOT_FOUND.
   */
  copyRulesFrom: idSchema('feeSchedule').optional(),
});
export type CreateTenantFeeScheduleBody = z.infer<typeof createTenantFeeScheduleBodySchema>;

/**
 * A rule of a draft schedule. Amounts are JSON numbers (read losslessly) or decimal strings with
 * at most the currency's fraction digits, else 400 INVALID_AMOUNT. The band is
 * `minAmount <= amount <= maxAmount`, either bound optional (null or absent: open). Bands of
 * the same transactionType and currencyCode in one schedule must not overlap (409
 * OVERLAPPING_FEE_RULE). `percentageFee` is a percent (1.5 means 1.5 %), 0-100 with at most 4
 * fraction digits. fee = clamp(flatFee + amount x percentageFee / 100, minFee, maxFee), rounded
 * half-up to the currency's scale.
 */
export const addFeeRuleBodySchema = z.object({
  transactionType: feeTransactionTypeSchema,
  currencyCode: currencyCodeSchema,
  minAmount: amountInputSchema.nullable().optional(),
  maxAmount: amountInputSchema.nullable().optional(),
  /** Default 0. */
  flatFee: amountInputSchema.optional(),
  /** Default 0. */
  percentageFee: amountInputSchema.optional(),
  minFee: amountInputSchema.nullable().optional(),
  maxFee: amountInputSchema.nullable().optional(),
});
export type AddFeeRuleBody = z.infer<typeof addFeeRuleBodySchema>;

/**
 * Publishing freezes a draft: no rule can be added afterwards, and publishing it again is 409
 * FEE_SCHEDULE_PUBLISHED. `makeDefault: true` makes it the tenant's only default, atomically;
 * when absent, the `isDefault` given at creation decides.
 */
export const publishFeeScheduleBodySchema = z.object({
  makeDefault: z.boolean().optional(),
});
export type PublishFeeScheduleBody = z.infer<typeof publishFeeScheduleBodySchema>;

/** Amounts are decimal strings at the currency's scale; percentageFee a plain decimal string. */
export const feeRuleSchema = z.object({
  id: z.string(),
  scheduleId: z.string(),
  transactionType: feeTransactionTypeSchema,
  currencyCode: z.string(),
  minAmount: z.string().nullable(),
  maxAmount: z.string().nullable(),
  flatFee: z.string(),
  percentageFee: z.string(),
  minFee: z.string().nullable(),
  maxFee: z.string().nullable(),
  createdAt: z.string(),
});
export type FeeRule = z.infer<typeof feeRuleSchema>;

/** A fee schedule, shared by both environments of its tenant. */
export const feeScheduleSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  name: z.string(),
  platformCommissionBps: z.number().int(),
  status: feeScheduleStatusSchema,
  /** Whether it is the tenant's default now: only a published schedule can be. */
  isDefault: z.boolean(),
  /** The `isDefault` asked for at creation: what publishing without `makeDefault` does. */
  defaultOnPublish: z.boolean(),
  origin: feeScheduleOriginSchema,
  /** The audit actor who created it (a member `usr_...`, an API key, the platform); null when made before it was recorded. */
  createdBy: z.string().nullable(),
  publishedAt: z.string().nullable(),
  /** The audit actor who published it; null for a draft, or when published before it was recorded. */
  publishedBy: z.string().nullable(),
  createdAt: z.string(),
});
export type FeeSchedule = z.infer<typeof feeScheduleSchema>;

export const feeScheduleWithRulesSchema = feeScheduleSchema.extend({ rules: z.array(feeRuleSchema) });
export type FeeScheduleWithRules = z.infer<typeof feeScheduleWithRulesSchema>;

export const feeScheduleListQuerySchema = pageQuerySchema.extend({
  status: feeScheduleStatusSchema.optional(),
});
export type FeeScheduleListQuery = z.infer<typeof feeScheduleListQuerySchema>;

/** `GET /v1/fees/quote`: the amount is checked against the currency (400 INVALID_AMOUNT). */
export const feeQuoteQuerySchema = z.object({
  transactionType: feeTransactionTypeSchema,
  currencyCode: currencyCodeSchema,
  amount: z.string().min(1).max(64),
});
export type FeeQuoteQuery = z.infer<typeof feeQuoteQuerySchema>;

/** What the tenant's default published schedule charges; fee "0" and null ids when no rule matches. */
export const feeQuoteSchema = z.object({
  transactionType: feeTransactionTypeSchema,
  currencyCode: z.string(),
  amount: z.string(),
  fee: z.string(),
  scheduleId: z.string().nullable(),
  ruleId: z.string().nullable(),
});
export type FeeQuote = z.infer<typeof feeQuoteSchema>;

const SYSTEM_SCHEDULES = '/v1/system/organizations/{tenantId}/fee-schedules';

/**
 * The fee routes, each with its precise schema types (for typed clients such as the SDK);
 * FEE_ROUTES is the same routes as a list for the gateway and the OpenAPI document.
 */
export const feeRoutes = {
  systemCreate: {
    method: 'post',
    path: SYSTEM_SCHEDULES,
    operationId: 'fees.tenantSchedules.create',
    summary: "Create a draft fee schedule for a tenant with the platform's commission; isDefault: it becomes the default when published",
    surface: 'system',
    service: 'payments',
    body: createSystemFeeScheduleBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: feeScheduleWithRulesSchema },
    errors: ['TENANT_NOT_FOUND'],
  },
  systemList: {
    method: 'get',
    path: SYSTEM_SCHEDULES,
    operationId: 'fees.tenantSchedules.list',
    summary: "List a tenant's fee schedules, newest first",
    surface: 'system',
    service: 'payments',
    query: feeScheduleListQuerySchema,
    success: { status: 200, schema: pageSchema(feeScheduleSchema) },
    errors: ['TENANT_NOT_FOUND'],
  },
  systemGet: {
    method: 'get',
    path: `${SYSTEM_SCHEDULES}/{scheduleId}`,
    operationId: 'fees.tenantSchedules.get',
    summary: "Get one of a tenant's fee schedules with its rules",
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: feeScheduleWithRulesSchema },
    errors: ['TENANT_NOT_FOUND', 'FEE_SCHEDULE_NOT_FOUND'],
  },
  systemAddRule: {
    method: 'post',
    path: `${SYSTEM_SCHEDULES}/{scheduleId}/rules`,
    operationId: 'fees.tenantSchedules.addRule',
    summary: 'Add a rule to a draft schedule; overlapping bands are 409 OVERLAPPING_FEE_RULE',
    surface: 'system',
    service: 'payments',
    body: addFeeRuleBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: feeRuleSchema },
    errors: ['INVALID_AMOUNT', 'TENANT_NOT_FOUND', 'FEE_SCHEDULE_NOT_FOUND', 'OVERLAPPING_FEE_RULE', 'FEE_SCHEDULE_PUBLISHED'],
  },
  systemPublish: {
    method: 'post',
    path: `${SYSTEM_SCHEDULES}/{scheduleId}/publish`,
    operationId: 'fees.tenantSchedules.publish',
    summary: 'Publish a draft schedule (then immutable); makeDefault makes it the tenant default',
    surface: 'system',
    service: 'payments',
    body: publishFeeScheduleBodySchema,
    success: { status: 200, schema: feeScheduleWithRulesSchema },
    errors: ['TENANT_NOT_FOUND', 'FEE_SCHEDULE_NOT_FOUND', 'FEE_SCHEDULE_PUBLISHED'],
  },
  list: {
    method: 'get',
    path: '/v1/admin/fee-schedules',
    operationId: 'fees.schedules.list',
    summary: 'List fee schedules, newest first',
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:read',
    query: feeScheduleListQuerySchema,
    success: { status: 200, schema: pageSchema(feeScheduleSchema) },
  },
  get: {
    method: 'get',
    path: '/v1/admin/fee-schedules/{id}',
    operationId: 'fees.schedules.get',
    summary: 'Get a fee schedule with its rules',
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:read',
    success: { status: 200, schema: feeScheduleWithRulesSchema },
    errors: ['FEE_SCHEDULE_NOT_FOUND'],
  },
  create: {
    method: 'post',
    path: '/v1/admin/fee-schedules',
    operationId: 'fees.schedules.create',
    summary: "Create a draft fee schedule; its platform commission is the default schedule's",
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:manage',
    body: createTenantFeeScheduleBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: feeScheduleWithRulesSchema },
    errors: ['FEE_SCHEDULE_NOT_FOUND'],
  },
  addRule: {
    method: 'post',
    path: '/v1/admin/fee-schedules/{id}/rules',
    operationId: 'fees.schedules.addRule',
    summary: 'Add a rule to a draft schedule; overlapping bands are 409 OVERLAPPING_FEE_RULE',
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:manage',
    body: addFeeRuleBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: feeRuleSchema },
    errors: ['INVALID_AMOUNT', 'FEE_SCHEDULE_NOT_FOUND', 'OVERLAPPING_FEE_RULE', 'FEE_SCHEDULE_PUBLISHED'],
  },
  removeRule: {
    method: 'delete',
    path: '/v1/admin/fee-schedules/{id}/rules/{ruleId}',
    operationId: 'fees.schedules.removeRule',
    summary: 'Remove a rule from a draft schedule; a published one is 409 FEE_SCHEDULE_PUBLISHED',
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:manage',
    success: { status: 200, schema: feeScheduleWithRulesSchema },
    errors: ['FEE_SCHEDULE_NOT_FOUND', 'FEE_RULE_NOT_FOUND', 'FEE_SCHEDULE_PUBLISHED'],
  },
  publish: {
    method: 'post',
    path: '/v1/admin/fee-schedules/{id}/publish',
    operationId: 'fees.schedules.publish',
    summary: 'Publish a draft schedule (then immutable); makeDefault makes it the default',
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:manage',
    body: publishFeeScheduleBodySchema,
    success: { status: 200, schema: feeScheduleWithRulesSchema },
    errors: ['FEE_SCHEDULE_NOT_FOUND', 'FEE_SCHEDULE_PUBLISHED'],
  },
  quote: {
    method: 'get',
    path: '/v1/fees/quote',
    operationId: 'fees.quote',
    summary: "The fee the tenant's default published schedule charges for a transaction",
    surface: 'tenant',
    service: 'payments',
    scope: 'fees:read',
    query: feeQuoteQuerySchema,
    success: { status: 200, schema: feeQuoteSchema },
    errors: ['INVALID_AMOUNT'],
  },
} as const satisfies Record<string, RouteContract>;

export const FEE_ROUTES: RouteContract[] = Object.values(feeRoutes);
