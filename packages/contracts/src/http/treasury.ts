import { z } from 'zod';
import { pageQuerySchema, pageSchema, timestampSchema } from '../common';
import { amountInputSchema } from '../json';
import { amountStringSchema, currencyCodeSchema, signedAmountStringSchema } from '../money';
import type { RouteContract } from '../route-contract';

/** api-decisions section 5: the rails a tenant funds its float over. */
export const FLOAT_RAILS = ['momo', 'bank', 'cash'] as const;
export const floatRailSchema = z.enum(FLOAT_RAILS);
export type FloatRail = z.infer<typeof floatRailSchema>;

/** `pending` until the ledger answers; `completed` once posted; `failed` when the ledger refused it. */
export const FLOAT_DEPOSIT_STATUSES = ['pending', 'completed', 'failed'] as const;
export const floatDepositStatusSchema = z.enum(FLOAT_DEPOSIT_STATUSES);
export type FloatDepositStatus = z.infer<typeof floatDepositStatusSchema>;

/**
 * `POST /v1/admin/money/float-deposits` (Idempotency-Key required): the service spec's tenant
 * float deposit. The amount is a JSON number (its exact token) or a decimal string, checked
 * against the currency's scale (400 INVALID_AMOUNT).
 */
export const createFloatDepositBodySchema = z.object({
  amount: amountInputSchema,
  currencyCode: currencyCodeSchema,
  rail: floatRailSchema,
  externalReference: z.string().trim().min(1).max(200).optional(),
  depositedBy: z.string().trim().min(1).max(200).optional(),
  note: z.string().trim().min(1).max(500).optional(),
});
export type CreateFloatDepositBody = z.infer<typeof createFloatDepositBodySchema>;

/** A float deposit as the API shows it; the amount is a decimal string at the currency's scale. */
export const floatDepositSchema = z.object({
  id: z.string(),
  amount: amountStringSchema,
  currencyCode: z.string(),
  rail: floatRailSchema,
  externalReference: z.string().nullable(),
  depositedBy: z.string().nullable(),
  note: z.string().nullable(),
  status: floatDepositStatusSchema,
  /** The `tenant_float_deposit` entry once posted; null while pending and when refused. */
  journalEntryId: z.string().nullable(),
  /** The ledger's refusal code when failed; else null. */
  failureCode: z.string().nullable(),
  createdAt: timestampSchema,
});
export type FloatDeposit = z.infer<typeof floatDepositSchema>;
export const floatDepositPageSchema = pageSchema(floatDepositSchema);

export const floatDepositQuerySchema = pageQuerySchema.extend({
  status: floatDepositStatusSchema.optional(),
  currencyCode: currencyCodeSchema.optional(),
});
export type FloatDepositQuery = z.infer<typeof floatDepositQuerySchema>;

/**
 * api-decisions section 6: one row per currency the tenant has operating accounts in. Signed
 * decimal strings at the currency's scale, each in its account's normal direction.
 */
export const treasuryBalanceSchema = z.object({
  currencyCode: z.string(),
  operatingFloat: signedAmountStringSchema,
  tenantFeeRevenue: signedAmountStringSchema,
  platformCommission: signedAmountStringSchema,
  suspense: signedAmountStringSchema,
  payoutClearing: signedAmountStringSchema,
});
export type TreasuryBalance = z.infer<typeof treasuryBalanceSchema>;
export const treasuryBalancesSchema = z.object({ data: z.array(treasuryBalanceSchema) });
export type TreasuryBalances = z.infer<typeof treasuryBalancesSchema>;

export const treasuryRoutes = {
  balances: {
    method: 'get',
    path: '/v1/admin/money/balances',
    summary: "The tenant's operating float (asset:pool), fee revenue, platform commission, suspense and payout clearing balances by currency, read from the ledger",
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:read',
    success: { status: 200, schema: treasuryBalancesSchema },
  },
  createFloatDeposit: {
    method: 'post',
    path: '/v1/admin/money/float-deposits',
    summary:
      'Record a tenant float deposit and post `tenant_float_deposit` (DR asset:pool:<cur>, CR asset:<rail>-clearing:<cur>). 201 completed; 202 pending when the ledger has not confirmed within the deadline. Idempotency-Key required',
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:write',
    body: createFloatDepositBodySchema,
    success: { status: 201, schema: floatDepositSchema },
  },
  listFloatDeposits: {
    method: 'get',
    path: '/v1/admin/money/float-deposits',
    summary: 'List float deposits, newest first',
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:read',
    query: floatDepositQuerySchema,
    success: { status: 200, schema: floatDepositPageSchema },
  },
  getFloatDeposit: {
    method: 'get',
    path: '/v1/admin/money/float-deposits/{id}',
    summary: 'Get a float deposit',
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:read',
    success: { status: 200, schema: floatDepositSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const TREASURY_ROUTES: RouteContract[] = Object.values(treasuryRoutes);
