import { idSchema } from '../ids';
import { z } from 'zod';
import { pageQuerySchema, pageSchema, timestampSchema } from '../common';
import { amountInputSchema } from '../json';
import { amountStringSchema, currencyCodeSchema, TRANSACTION_LIMIT_NOTE } from '../money';
import type { RouteContract } from '../route-contract';

/** `pending` until the ledger answers; `completed` once posted; `failed` when the ledger refused it. */
export const TRANSFER_STATUSES = ['pending', 'completed', 'failed'] as const;
export const transferStatusSchema = z.enum(TRANSFER_STATUSES);
export type TransferStatus = z.infer<typeof transferStatusSchema>;

const walletIdSchema = z.string().min(1).max(64);

/**
 * `POST /v1/transfers` (Idempotency-Key required). The amount is a JSON number (its exact token)
 * or a decimal string, checked against the currency's scale (400 INVALID_AMOUNT).
 */
export const createTransferBodySchema = z.object({
  fromWalletId: walletIdSchema,
  toWalletId: walletIdSchema,
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
});
export type TransferQuery = z.infer<typeof transferQuerySchema>;

export const transferRoutes = {
  create: {
    method: 'post',
    path: '/v1/transfers',
    idempotencyKey: 'required',
    summary:
      `Move money between two wallets of the same currency; the fee is charged to the sender on top. 201 completed; 202 pending when the ledger has not confirmed within the deadline (the transfer finishes later); 422 with the ledger's code (INSUFFICIENT_FUNDS, WALLET_FROZEN) and details.transferId when refused; ${TRANSACTION_LIMIT_NOTE}. Idempotency-Key required`,
    surface: 'tenant',
    service: 'payments',
    scope: 'transfers:create',
    body: createTransferBodySchema,
    success: { status: 201, schema: transferSchema },
  },
  list: {
    method: 'get',
    path: '/v1/transfers',
    summary: 'List transfers, newest first; walletId matches either side',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: transferQuerySchema,
    success: { status: 200, schema: transferPageSchema },
  },
  get: {
    method: 'get',
    path: '/v1/transfers/{id}',
    summary: 'Get a transfer',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    success: { status: 200, schema: transferSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const TRANSFER_ROUTES: RouteContract[] = Object.values(transferRoutes);
