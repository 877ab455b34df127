import { z } from 'zod';
import { boundedFiltersNote, createdRangeQueryShape, pageQuerySchema, moneySortQueryShape, pageSchema, timestampSchema } from '../common';
import { amountInputSchema } from '../json';
import { amountStringSchema, currencyCodeSchema, signedAmountStringSchema, TRANSACTION_LIMIT_NOTE } from '../money';
import type { RouteContract } from '../route-contract';
import {
  caseAwaitingLedgerSchema,
  caseDecisionFields,
  caseQuerySchema,
  caseRailFields,
  caseRoutes,
  caseRequestFields,
  RAIL_STEP_AWAITED,
} from './maker-checker';
import { bankDestinationSchema, momoDestinationSchema } from './payouts';
import { plainTextSchema } from '../text';

/** The rails a tenant funds its float over (docs/decisions/routes-and-bodies.md). */
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
  externalReference: plainTextSchema(200).optional(),
  /** The team member who made the deposit: an active member of the tenant whose role grants treasury:write (else 403 ACTOR_NOT_PERMITTED). */
  depositedBy: plainTextSchema(200).optional(),
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
  ...createdRangeQueryShape,
  ...moneySortQueryShape,
});
export type FloatDepositQuery = z.infer<typeof floatDepositQuerySchema>;

/**
 * docs/decisions/response-shapes.md: one row per currency the tenant has operating accounts in. Signed
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

/** What a tenant withdraws from, its fee revenue or its operating float (docs/decisions/routes-and-bodies.md). */
export const WITHDRAWAL_SOURCES = ['tenant_fees', 'operating_float'] as const;
export const withdrawalSourceSchema = z.enum(WITHDRAWAL_SOURCES);
export type WithdrawalSource = z.infer<typeof withdrawalSourceSchema>;

export const WITHDRAWAL_METHODS = ['momo', 'bank', 'cash'] as const;
export const withdrawalMethodSchema = z.enum(WITHDRAWAL_METHODS);
export type WithdrawalMethod = z.infer<typeof withdrawalMethodSchema>;

/** Cash is collected in person: who collects it, and where when it matters. */
export const cashDestinationSchema = z.object({
  recipientName: plainTextSchema(200),
  location: z.string().trim().min(1).max(200).optional(),
});
export const withdrawalDestinationSchema = z.union([momoDestinationSchema, bankDestinationSchema, cashDestinationSchema]);
export type WithdrawalDestination = z.infer<typeof withdrawalDestinationSchema>;

/**
 * docs/decisions/maker-checker.md: `pending` -> `approved` -> `completed` | `failed`; `pending` ->
 * `rejected`. Approval settles the amount into payout clearing, where the rail takes it over:
 * `completed` once it paid the destination, `failed` when it refused (the source gets the amount
 * back). A case whose hold the ledger refused (the source does not hold the amount) is `failed` at
 * once. A status is final only once the ledger posted its step's entry: until then the case shows
 * `awaitingLedger: true`.
 */
export const WITHDRAWAL_STATUSES = ['pending', 'approved', 'rejected', 'completed', 'failed'] as const;
export const withdrawalStatusSchema = z.enum(WITHDRAWAL_STATUSES);
export type WithdrawalStatus = z.infer<typeof withdrawalStatusSchema>;

const withdrawalRequestFields = { source: withdrawalSourceSchema, ...caseRequestFields };

/** `POST /v1/admin/money/withdrawals` (Idempotency-Key required): the destination's shape follows payoutMethod. */
export const createWithdrawalBodySchema = z.discriminatedUnion('payoutMethod', [
  z.object({ ...withdrawalRequestFields, payoutMethod: z.literal('momo'), destination: momoDestinationSchema }),
  z.object({ ...withdrawalRequestFields, payoutMethod: z.literal('bank'), destination: bankDestinationSchema }),
  z.object({ ...withdrawalRequestFields, payoutMethod: z.literal('cash'), destination: cashDestinationSchema }),
]);
export type CreateWithdrawalBody = z.infer<typeof createWithdrawalBodySchema>;

/** The checker's bodies, the same for every maker-checker case. */
export {
  approveCaseBodySchema as approveWithdrawalBodySchema,
  type ApproveCaseBody as ApproveWithdrawalBody,
  rejectCaseBodySchema as rejectWithdrawalBodySchema,
  type RejectCaseBody as RejectWithdrawalBody,
} from './maker-checker';

/**
 * A withdrawal case as the API shows it; the amount is a decimal string at the currency's scale.
 * Its hold is a `withdrawal_hold` entry (refused: INSUFFICIENT_FUNDS), its decision a
 * `withdrawal_settle` or `withdrawal_release` one, the rail's outcome a `withdrawal_complete` or
 * `withdrawal_fail` one.
 */
export const withdrawalSchema = z.object({
  id: z.string(),
  source: withdrawalSourceSchema,
  amount: amountStringSchema,
  currencyCode: z.string(),
  payoutMethod: withdrawalMethodSchema,
  destination: withdrawalDestinationSchema,
  narration: z.string().nullable(),
  ...caseDecisionFields(withdrawalStatusSchema),
  ...caseRailFields(),
  awaitingLedger: caseAwaitingLedgerSchema([RAIL_STEP_AWAITED]),
  createdAt: timestampSchema,
});
export type Withdrawal = z.infer<typeof withdrawalSchema>;
export const withdrawalPageSchema = pageSchema(withdrawalSchema);

export const withdrawalQuerySchema = caseQuerySchema(withdrawalStatusSchema);
export type WithdrawalQuery = z.infer<typeof withdrawalQuerySchema>;

export const treasuryRoutes = {
  balances: {
    method: 'get',
    path: '/v1/admin/money/balances',
    operationId: 'treasury.balances',
    summary:
      "The tenant's operating float (asset:pool), fee revenue, platform commission, suspense and payout clearing balances by currency, read from the ledger",
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:read',
    success: { status: 200, schema: treasuryBalancesSchema },
  },
  createFloatDeposit: {
    method: 'post',
    path: '/v1/admin/money/float-deposits',
    operationId: 'treasury.floatDeposits.create',
    idempotencyKey: 'required',
    summary: `Record a tenant float deposit and post \`tenant_float_deposit\` (DR asset:pool:<cur>, CR asset:<rail>-clearing:<cur>). 201 completed; 202 pending when the ledger has not confirmed within the deadline; ${TRANSACTION_LIMIT_NOTE}; 403 ACTOR_NOT_PERMITTED when depositedBy is not an active member whose role grants treasury:write. Idempotency-Key required`,
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:write',
    body: createFloatDepositBodySchema,
    success: { status: 201, schema: floatDepositSchema },
    alsoAnswers: { 202: 'Pending: the ledger has not confirmed within the deadline; the deposit finishes later' },
    errors: ['INVALID_AMOUNT', 'ACTOR_NOT_PERMITTED', 'AMOUNT_EXCEEDS_LIMIT'],
  },
  listFloatDeposits: {
    method: 'get',
    path: '/v1/admin/money/float-deposits',
    operationId: 'treasury.floatDeposits.list',
    summary: `List float deposits, newest first unless sort names another order (createdAt or amount, either way). ${boundedFiltersNote('on status, currencyCode, createdFrom and createdTo')}`,
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:read',
    query: floatDepositQuerySchema,
    success: { status: 200, schema: floatDepositPageSchema },
  },
  getFloatDeposit: {
    method: 'get',
    path: '/v1/admin/money/float-deposits/{id}',
    operationId: 'treasury.floatDeposits.get',
    summary: 'Get a float deposit',
    surface: 'tenant',
    service: 'treasury',
    scope: 'treasury:read',
    success: { status: 200, schema: floatDepositSchema },
    errors: ['FLOAT_DEPOSIT_NOT_FOUND'],
  },
} as const satisfies Record<string, RouteContract>;

const withdrawalSummaries = {
  create: `Request a withdrawal of tenant fee revenue or operating float (maker). Holds the amount in suspense (\`withdrawal_hold\`) and waits for a checker. 201 pending with the hold posted; 202 pending with awaitingLedger true when the ledger has not confirmed the hold within the deadline (it cannot be decided until then); 422 INSUFFICIENT_FUNDS with details.withdrawalId when the source does not hold the amount (the case is then failed); ${TRANSACTION_LIMIT_NOTE}. Idempotency-Key required`,
  approve:
    'Approve a pending withdrawal (checker: an active member whose role grants treasury:approve, not the requester): settles the hold from suspense into payout clearing (`withdrawal_settle`), from where the rail delivers it (completed with `withdrawal_complete`, or failed with `withdrawal_fail`, the source refunded). 200 approved once the ledger posted the settle (decisionJournalEntryId set); 202 approved with awaitingLedger true when the ledger has not confirmed within the deadline (a retry under the same Idempotency-Key replays that 202; GET shows the settle once posted). 403 ACTOR_NOT_PERMITTED / SELF_APPROVAL_FORBIDDEN / ACTOR_MISMATCH; 409 CASE_HOLD_IN_PROGRESS with Retry-After while the hold is still posting (nothing changed, retry); 409 CASE_NOT_PENDING once the case was decided or failed',
  reject:
    'Reject a pending withdrawal (same checker rules as approve): releases the hold back to its source (`withdrawal_release`). 200 rejected once the ledger posted the release; 202 rejected with awaitingLedger true past the deadline, as for approve. 409 CASE_HOLD_IN_PROGRESS with Retry-After while the hold is still posting; 409 CASE_NOT_PENDING once decided or failed',
};

export const withdrawalRoutes = caseRoutes({
  noun: 'withdrawal case',
  service: 'treasury',
  paths: {
    create: '/v1/admin/money/withdrawals',
    list: '/v1/admin/money/withdrawals',
    item: '/v1/admin/money/withdrawals/{id}',
    policy: '/v1/approval-policies/withdrawals',
  },
  scopes: { create: 'treasury:write', read: 'treasury:read', approve: 'treasury:approve' },
  schemas: { create: createWithdrawalBodySchema, query: withdrawalQuerySchema, page: withdrawalPageSchema, shown: withdrawalSchema },
  summaries: withdrawalSummaries,
  namespace: 'treasury.withdrawals',
  createErrors: ['INSUFFICIENT_FUNDS'],
}) satisfies Record<string, RouteContract>;

export const TREASURY_ROUTES: RouteContract[] = [...Object.values(treasuryRoutes), ...Object.values(withdrawalRoutes)];
