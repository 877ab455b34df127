import { idSchema, walletIdInputSchema } from '../ids';
import { z } from 'zod';
import { pageSchema, timestampSchema } from '../common';
import { amountStringSchema, TRANSACTION_LIMIT_NOTE } from '../money';
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
import { plainTextSchema } from '../text';

/**
 * docs/decisions/maker-checker.md: `pending` -> `approved` -> `completed` | `failed`; `pending` ->
 * `rejected`. A case whose hold the ledger refused (funds, freeze) is `failed` at once, so it
 * never waits for a decision on money that was not held. A status is final only once the ledger
 * posted its step's entry: until then the case shows `awaitingLedger: true`.
 */
export const PAYOUT_STATUSES = ['pending', 'approved', 'rejected', 'completed', 'failed'] as const;
export const payoutStatusSchema = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof payoutStatusSchema>;

export const PAYOUT_METHODS = ['momo', 'bank'] as const;
export const payoutMethodSchema = z.enum(PAYOUT_METHODS);
export type PayoutMethod = z.infer<typeof payoutMethodSchema>;

export const momoDestinationSchema = z.object({
  phoneNumber: z
    .string()
    .trim()
    .regex(/^\+?[0-9]{7,15}$/),
  network: z.string().trim().min(1).max(64),
});
export const bankDestinationSchema = z.object({
  bankCode: plainTextSchema(64),
  accountNumber: z.string().trim().min(1).max(64),
  accountName: plainTextSchema(200),
});
export const payoutDestinationSchema = z.union([momoDestinationSchema, bankDestinationSchema]);
export type PayoutDestination = z.infer<typeof payoutDestinationSchema>;

const payoutRequestFields = { walletId: walletIdInputSchema, ...caseRequestFields };

/** `POST /v1/payouts` (Idempotency-Key required): the destination's shape follows payoutMethod. */
export const createPayoutBodySchema = z.discriminatedUnion('payoutMethod', [
  z.object({ ...payoutRequestFields, payoutMethod: z.literal('momo'), destination: momoDestinationSchema }),
  z.object({ ...payoutRequestFields, payoutMethod: z.literal('bank'), destination: bankDestinationSchema }),
]);
export type CreatePayoutBody = z.infer<typeof createPayoutBodySchema>;

/** The checker's bodies, the same for every maker-checker case. */
export {
  approveCaseBodySchema as approvePayoutBodySchema,
  type ApproveCaseBody as ApprovePayoutBody,
  rejectCaseBodySchema as rejectPayoutBodySchema,
  type RejectCaseBody as RejectPayoutBody,
} from './maker-checker';

/**
 * A payout case as the API shows it; amounts are decimal strings at the currency's scale. Its
 * hold is a `payout_hold` entry (refused: INSUFFICIENT_FUNDS, WALLET_FROZEN), its decision a
 * `payout_settle` or `payout_release` one.
 */
export const payoutCaseSchema = z.object({
  id: z.string(),
  walletId: z.string(),
  amount: amountStringSchema,
  currencyCode: z.string(),
  /** Held with the amount and charged at settlement, from the tenant's default fee schedule. */
  fee: amountStringSchema,
  payoutMethod: payoutMethodSchema,
  destination: payoutDestinationSchema,
  narration: z.string().nullable(),
  ...caseDecisionFields(payoutStatusSchema),
  /** The rail's answer, and the `payout_complete` or `payout_fail` entry once posted. */
  ...caseRailFields(),
  awaitingLedger: caseAwaitingLedgerSchema([RAIL_STEP_AWAITED]),
  createdAt: timestampSchema,
});
export type PayoutCase = z.infer<typeof payoutCaseSchema>;
export const payoutCasePageSchema = pageSchema(payoutCaseSchema);

export const payoutCaseQuerySchema = caseQuerySchema(payoutStatusSchema, { walletId: idSchema('wallet').optional() });
export type PayoutCaseQuery = z.infer<typeof payoutCaseQuerySchema>;

const payoutSummaries = {
  create: `Request a payout from a wallet (maker). Holds amount plus fee in suspense and waits for a checker. 201 pending with the hold posted; 202 pending with awaitingLedger true when the ledger has not confirmed the hold within the deadline (it cannot be decided until then); 422 INSUFFICIENT_FUNDS / WALLET_FROZEN with details.payoutCaseId when the ledger refused it (the case is then failed); ${TRANSACTION_LIMIT_NOTE}. Idempotency-Key required`,
  approve:
    'Approve a pending case (checker: an active member whose role grants payouts:approve, not the requester): settles the hold from suspense into payout clearing and charges the fee. 200 approved once the ledger posted the settle (decisionJournalEntryId set); 202 approved with awaitingLedger true when the ledger has not confirmed within the deadline (a retry under the same Idempotency-Key replays that 202; GET shows the settle once posted). 403 ACTOR_NOT_PERMITTED / SELF_APPROVAL_FORBIDDEN; 409 CASE_HOLD_IN_PROGRESS with Retry-After while the hold is still posting (nothing changed, retry); 409 CASE_NOT_PENDING once the case was decided or failed',
  reject:
    'Reject a pending case (same checker rules as approve): releases the hold back to the wallet. 200 rejected once the ledger posted the release (the wallet holds the money again); 202 rejected with awaitingLedger true past the deadline, as for approve. 409 CASE_HOLD_IN_PROGRESS with Retry-After while the hold is still posting; 409 CASE_NOT_PENDING once decided or failed',
};

export const payoutRoutes = caseRoutes({
  noun: 'payout case',
  service: 'payments',
  paths: { create: '/v1/payouts', list: '/v1/payouts/cases', item: '/v1/payouts/{id}', policy: '/v1/approval-policies/payouts' },
  scopes: { create: 'payouts:create', read: 'payouts:read', approve: 'payouts:approve' },
  schemas: { create: createPayoutBodySchema, query: payoutCaseQuerySchema, page: payoutCasePageSchema, shown: payoutCaseSchema },
  summaries: payoutSummaries,
  namespace: 'payouts',
  createErrors: ['WALLET_NOT_FOUND', 'INSUFFICIENT_FUNDS', 'WALLET_FROZEN', 'CURRENCY_MISMATCH'],
}) satisfies Record<string, RouteContract>;

export const PAYOUT_ROUTES: RouteContract[] = Object.values(payoutRoutes);
