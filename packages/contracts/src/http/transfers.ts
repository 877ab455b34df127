import { idSchema, walletIdInputSchema } from '../ids';
import { z } from 'zod';
import { boundedFiltersNote, createdRangeQueryShape, pageQuerySchema, moneySortQueryShape, pageSchema, timestampSchema } from '../common';
import { amountInputSchema } from '../json';
import { amountStringSchema, currencyCodeSchema, TRANSACTION_LIMIT_NOTE } from '../money';
import type { RouteContract } from '../route-contract';

/** `pending` until the ledger answers; `completed` once posted; `failed` when the ledger refused it. */
export const TRANSFER_STATUSES = ['pending', 'completed', 'failed'] as const;
export const transferStatusSchema = z.enum(TRANSFER_STATUSES);
export type TransferStatus = z.infer<typeof transferStatusSchema>;

/**
 * `POST /v1/transfers` (Idempotency-Key required). The amount is a JSON number (its exact token)
 * or a decimal string, checked against the currency's scale (400 INVALID_AMOUNT).
 */
export const createTransferBodySchema = z.object({
  fromWalletId: walletIdInputSchema,
  toWalletId: walletIdInputSchema,
  amount: amountInputSchema,
  currencyCode: currencyCodeSchema,
  description: z.string().trim().min(1).max(500).optional(),
});
export type CreateTransferBody = z.infer<typeof createTransferBodySchema>;

/** A transfer as the API shows it; amounts are decimal strings at the currency's scale. */
export const transferSchema = z.object({
  id: z.string(),
  fromWalletId: z.string(),
  toWalletId: z.string(),
  amount: amountStringSchema,
  currencyCode: z.string(),
  /** Charged to the sender on top of the amount, from the tenant's default fee schedule. */
  fee: amountStringSchema,
  status: transferStatusSchema,
  /** The ledger's entry once completed; null while pending and when failed. */
  journalEntryId: z.string().nullable(),
  /** The ledger's refusal (INSUFFICIENT_FUNDS, WALLET_FROZEN, ...) when failed; else null. */
  failureCode: z.string().nullable(),
  description: z.string().nullable(),
  createdAt: timestampSchema,
});
export type Transfer = z.infer<typeof transferSchema>;
export const transferPageSchema = pageSchema(transferSchema);

/** `walletId` matches either side of the transfer. */
export const transferQuerySchema = pageQuerySchema.extend({
  walletId: idSchema('wallet').optional(),
  status: transferStatusSchema.optional(),
  ...createdRangeQueryShape,
  ...moneySortQueryShape,
});
export type TransferQuery = z.infer<typeof transferQuerySchema>;

/**
 * `POST /v1/transfers/{id}/reversals` (Idempotency-Key required): gives back part or all of a
 * completed transfer. `amount` omitted reverses what is not reversed yet; given, it is a JSON
 * number or a decimal string at the transfer's currency scale (400 INVALID_AMOUNT), as every money
 * POST takes it. `refundFee` hands the sender the transfer's fee back as well (once per transfer).
 */
export const createTransferReversalBodySchema = z.object({
  amount: amountInputSchema.optional(),
  reason: z.string().trim().min(1).max(500),
  refundFee: z.boolean().optional(),
});
export type CreateTransferReversalBody = z.infer<typeof createTransferReversalBodySchema>;

/** A reversal as the API shows it: `pending` until the ledger answers, then `completed` with its entry or `failed` with the ledger's code. */
export const transferReversalSchema = z.object({
  id: z.string(),
  transferId: z.string(),
  amount: amountStringSchema,
  currencyCode: z.string(),
  /** The transfer's fee handed back to the sender; "0.00" when the fee was not refunded. */
  feeRefunded: amountStringSchema,
  reason: z.string(),
  status: transferStatusSchema,
  journalEntryId: z.string().nullable(),
  failureCode: z.string().nullable(),
  /** True while pending: the ledger has not answered yet. */
  awaitingLedger: z.literal(true).optional(),
  createdAt: timestampSchema,
});
export type TransferReversal = z.infer<typeof transferReversalSchema>;
export const transferReversalPageSchema = pageSchema(transferReversalSchema);

export const transferRoutes = {
  create: {
    method: 'post',
    path: '/v1/transfers',
    operationId: 'transfers.create',
    idempotencyKey: 'required',
    summary: `Move money between two wallets of the same currency; the fee is charged to the sender on top. 201 completed; 202 pending when the ledger has not confirmed within the deadline (the transfer finishes later); 422 with the ledger's code (INSUFFICIENT_FUNDS, WALLET_FROZEN) and details.transferId when refused; ${TRANSACTION_LIMIT_NOTE}. Idempotency-Key required`,
    surface: 'tenant',
    service: 'payments',
    scope: 'transfers:create',
    body: createTransferBodySchema,
    success: { status: 201, schema: transferSchema },
    alsoAnswers: { 202: 'Pending: the ledger has not confirmed within the deadline; the transfer finishes later' },
    errors: [
      'INVALID_AMOUNT',
      'WALLET_NOT_FOUND',
      'INSUFFICIENT_FUNDS',
      'WALLET_FROZEN',
      'CURRENCY_MISMATCH',
      'AMOUNT_EXCEEDS_LIMIT',
      'SAME_WALLET',
    ],
  },
  list: {
    method: 'get',
    path: '/v1/transfers',
    operationId: 'transfers.list',
    summary: `List transfers, newest first unless sort names another order (createdAt or amount, either way); walletId matches either side. ${boundedFiltersNote('on status, createdFrom and createdTo, and on walletId when sorted by amount')}`,
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: transferQuerySchema,
    success: { status: 200, schema: transferPageSchema },
  },
  get: {
    method: 'get',
    path: '/v1/transfers/{id}',
    operationId: 'transfers.get',
    summary: 'Get a transfer',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    success: { status: 200, schema: transferSchema },
    errors: ['TRANSFER_NOT_FOUND'],
  },
  reverse: {
    method: 'post',
    path: '/v1/transfers/{id}/reversals',
    operationId: 'transfers.reverse',
    idempotencyKey: 'required',
    summary:
      "Reverse part or all of a completed transfer: the receiver's wallet gives the amount back to the sender's (`transfer_reversal`, naming the transfer's entry), and with refundFee the transfer's fee and commission lines are undone (once per transfer). amount omitted reverses what is left. 201 completed; 202 pending when the ledger has not confirmed within the deadline; 404 TRANSFER_NOT_FOUND; 409 TRANSFER_NOT_REVERSIBLE unless the transfer is completed; 422 REVERSAL_EXCEEDS_TRANSFER (details.reversible) when the transfer's reversals would pass its amount, FEE_ALREADY_REFUNDED, or the ledger's code (INSUFFICIENT_FUNDS when the receiver no longer holds the amount) with details.reversalId. Idempotency-Key required",
    surface: 'tenant',
    service: 'payments',
    scope: 'transfers:create',
    body: createTransferReversalBodySchema,
    success: { status: 201, schema: transferReversalSchema },
    alsoAnswers: { 202: 'Pending (awaitingLedger true): the ledger has not confirmed within the deadline' },
    errors: [
      'INVALID_AMOUNT',
      'TRANSFER_NOT_FOUND',
      'TRANSFER_NOT_REVERSIBLE',
      'INSUFFICIENT_FUNDS',
      'WALLET_FROZEN',
      'REVERSAL_EXCEEDS_TRANSFER',
      'FEE_ALREADY_REFUNDED',
    ],
  },
  listReversals: {
    method: 'get',
    path: '/v1/transfers/{id}/reversals',
    operationId: 'transfers.reversals',
    summary: "A transfer's reversals, newest first, failed ones included; 404 TRANSFER_NOT_FOUND",
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: pageQuerySchema,
    success: { status: 200, schema: transferReversalPageSchema },
    errors: ['TRANSFER_NOT_FOUND'],
  },
} as const satisfies Record<string, RouteContract>;

export const TRANSFER_ROUTES: RouteContract[] = Object.values(transferRoutes);
