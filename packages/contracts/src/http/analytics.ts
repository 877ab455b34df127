import { z } from 'zod';
import { dayInputSchema, environmentSchema, offsetInstantInputSchema, timestampSchema } from '../common';
import { JOURNAL_KINDS } from '../messages/ledger-post.v1';
import { amountStringSchema, currencyCodeSchema, signedAmountStringSchema } from '../money';
import type { RouteContract } from '../route-contract';
import { CASE_TYPE_NAMES, CASE_TYPES, type CasePendingField } from './maker-checker';

/** Days one analytics request may span at most: the daily rows stay a bounded list. */
export const ANALYTICS_RANGE_DAYS_MAX = 366;
/** The range when the query names none: the last 30 UTC days, today included. */
export const ANALYTICS_RANGE_DAYS_DEFAULT = 30;

const DAY_TEXT = /^\d{4}-\d{2}-\d{2}$/;
/** A UTC day (`2026-11-23`) or an ISO 8601 timestamp with an offset, within the API's date domain. */
const dayOrTimestampSchema = z.union([dayInputSchema, offsetInstantInputSchema]);

/**
 * The read models count by UTC day, so a range covers whole days: `from` is rounded down to
 * its day's start and `to` up to the next day's start (unless it is a day's start already).
 * The answer names the range it covered. The date domain ends at 9999-12-31, so the last day
 * can still be rounded up; a default `from` 30 days before a `to` near its start stays in
 * PostgreSQL's years.
 */
export const analyticsQuerySchema = z
  .object({
    from: dayOrTimestampSchema.optional(),
    to: dayOrTimestampSchema.optional(),
    currencyCode: currencyCodeSchema.optional(),
  })
  .superRefine((query, context) => {
    if (query.from !== undefined && query.to !== undefined && !(analyticsInstant(query.from) < analyticsInstant(query.to))) {
      context.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
    }
  });
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>;

/** The system view adds the environment (default `live`): test and live money never add up together. */
export const systemAnalyticsQuerySchema = analyticsQuerySchema.safeExtend({ environment: environmentSchema.optional() });
export type SystemAnalyticsQuery = z.infer<typeof systemAnalyticsQuerySchema>;

/** Milliseconds since the epoch of a checked `from`/`to` value (a bare day is its UTC midnight). */
export function analyticsInstant(text: string): number {
  return DAY_TEXT.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
}

const count = z.number().int().min(0);

/** Figures of one kind of entry, or of one UTC day, within the range. */
export const analyticsFiguresSchema = z.object({
  entryCount: count,
  /** Sum of the entries' debit lines on accounts other than `revenue:fees` and `platform-commission`. */
  volume: amountStringSchema,
  /** CR minus DR on `revenue:fees`, except withdrawal entries (they move earned revenue out). */
  feeRevenue: signedAmountStringSchema,
  /** CR minus DR on `platform-commission`. */
  platformCommission: signedAmountStringSchema,
});
export type AnalyticsFigures = z.infer<typeof analyticsFiguresSchema>;

export const analyticsKindFiguresSchema = analyticsFiguresSchema.extend({ kind: z.enum(JOURNAL_KINDS) });
export const analyticsDayFiguresSchema = analyticsFiguresSchema.extend({ date: z.string().regex(DAY_TEXT) });

/**
 * Balances now (not bounded by the range), each in its accounts' normal direction, summed over
 * the accounts of a class: the same figures the ledger's balances add up to.
 */
export const analyticsLiquiditySchema = z.object({
  wallets: signedAmountStringSchema,
  operatingFloat: signedAmountStringSchema,
  momoFloat: signedAmountStringSchema,
  bankFloat: signedAmountStringSchema,
  railClearing: signedAmountStringSchema,
  suspense: signedAmountStringSchema,
  payoutClearing: signedAmountStringSchema,
  feeRevenue: signedAmountStringSchema,
  platformCommission: signedAmountStringSchema,
});
export type AnalyticsLiquidity = z.infer<typeof analyticsLiquiditySchema>;

/** Cases held and neither settled nor released yet (now, not bounded by the range): amount includes the fee held. */
export const analyticsPendingSchema = z.object({ count, amount: amountStringSchema });
export type AnalyticsPending = z.infer<typeof analyticsPendingSchema>;

/** A field per case type (`pendingPayouts`, `pendingWithdrawals`), so a new case type's cases are counted without a field of its own here. */
const pendingShape = Object.fromEntries(CASE_TYPE_NAMES.map((type) => [CASE_TYPES[type].pending, analyticsPendingSchema])) as Record<
  CasePendingField,
  typeof analyticsPendingSchema
>;

export const analyticsCurrencySchema = z.object({
  currencyCode: z.string(),
  totals: analyticsFiguresSchema,
  byKind: z.array(analyticsKindFiguresSchema),
  daily: z.array(analyticsDayFiguresSchema),
  liquidity: analyticsLiquiditySchema,
  ...pendingShape,
});
export type AnalyticsCurrency = z.infer<typeof analyticsCurrencySchema>;

/**
 * The gateway's internal route (admin listener, internal token) summarising its request logs in
 * [from, to) of one environment: `?from&to&environment`, plus `tenantId` for a system token.
 */
export const REQUEST_LOG_SUMMARY_PATH = '/internal/v1/request-logs/summary';

/** Request logs of the range as the gateway recorded them; errors are status >= 400. */
export const requestErrorSummarySchema = z.object({
  totalRequests: count,
  errorCount: count,
  byStatus: z.array(z.object({ status: z.number().int(), count })),
  byErrorCode: z.array(z.object({ errorCode: z.string(), count })),
});
export type RequestErrorSummary = z.infer<typeof requestErrorSummarySchema>;

/** When the gateway cannot be asked, the money figures still answer and this section says so. */
export const analyticsRequestErrorsSchema = z.discriminatedUnion('available', [
  requestErrorSummarySchema.extend({ available: z.literal(true) }),
  z.object({ available: z.literal(false), reason: z.string() }),
]);
export type AnalyticsRequestErrors = z.infer<typeof analyticsRequestErrorsSchema>;

const rangeShape = {
  /** The range covered, whole UTC days: [from, to). */
  from: timestampSchema,
  to: timestampSchema,
  /** When the newest entry applied to the read models was posted; null before the first one. */
  lastEntryAt: timestampSchema.nullable(),
};

export const tenantAnalyticsSchema = z.object({
  tenantId: z.string(),
  environment: environmentSchema,
  ...rangeShape,
  currencies: z.array(analyticsCurrencySchema),
  requestErrors: analyticsRequestErrorsSchema,
});
export type TenantAnalytics = z.infer<typeof tenantAnalyticsSchema>;

export const systemAnalyticsSchema = z.object({
  environment: environmentSchema,
  ...rangeShape,
  /** Every tenant together, per currency; `totals.platformCommission` is the platform's commission earned. */
  currencies: z.array(analyticsCurrencySchema),
  tenants: z.array(z.object({ tenantId: z.string(), currencies: z.array(analyticsCurrencySchema) })),
  requestErrors: analyticsRequestErrorsSchema,
});
export type SystemAnalytics = z.infer<typeof systemAnalyticsSchema>;

export const analyticsRoutes = {
  tenant: {
    method: 'get',
    path: '/v1/admin/analytics',
    operationId: 'analytics.get',
    summary:
      "The caller's tenant and environment, per currency: entry counts, volume, fee revenue and platform commission by kind and by UTC day in [from, to) (default the last 30 days), liquidity and pending payouts and withdrawals now, and request errors from the gateway's logs. Fed by the ledger's events: a posted entry shows within moments. 400 VALIDATION_ERROR when from is not before to",
    surface: 'tenant',
    service: 'treasury',
    scope: 'analytics:read',
    query: analyticsQuerySchema,
    success: { status: 200, schema: tenantAnalyticsSchema },
  },
  system: {
    method: 'get',
    path: '/v1/system/analytics',
    operationId: 'analytics.acrossTenants',
    summary:
      'Every tenant of one environment (default live): the same figures summed per currency, including the platform commission earned, and one row per tenant',
    surface: 'system',
    service: 'treasury',
    query: systemAnalyticsQuerySchema,
    success: { status: 200, schema: systemAnalyticsSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const ANALYTICS_ROUTES: RouteContract[] = Object.values(analyticsRoutes);
