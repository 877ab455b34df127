import { z } from 'zod';
import { ACCOUNTS } from '../chart-of-accounts';
import {
  boundedFiltersNote,
  createdRangeQueryShape,
  environmentSchema,
  pageQuerySchema,
  pageSchema,
  sortQueryShape,
  timestampSchema,
} from '../common';
import { amountStringSchema, currencyCodeSchema } from '../money';
import type { RouteContract } from '../route-contract';
import { BALANCE_AT_SUMMARY, balanceAtQuerySchema, walletBalanceAtSchema } from './balances';
import { statementPageSchema, statementQuerySchema } from './ledger';

/** `user`, `branch` (a physical branch or agent location) or `company` (a business entity). */
export const WALLET_OWNER_TYPES = ['user', 'branch', 'company'] as const;
export const walletOwnerTypeSchema = z.enum(WALLET_OWNER_TYPES);
export type WalletOwnerType = z.infer<typeof walletOwnerTypeSchema>;

/** `active` sends and receives; `frozen` still receives but cannot send. */
export const WALLET_STATUSES = ['active', 'frozen'] as const;
export const walletStatusSchema = z.enum(WALLET_STATUSES);
export type WalletStatus = z.infer<typeof walletStatusSchema>;

/**
 * The owner's identifier within the tenant. It keys the wallet's ledger account, so it is held
 * to the characters the chart of accounts allows there.
 */
export const walletOwnerIdSchema = z
  .string()
  .regex(new RegExp(`^${ACCOUNTS.wallet.keyPattern}$`), 'must be 1-128 letters, digits or . _ : @ + -');

export const createWalletBodySchema = z.object({
  ownerType: walletOwnerTypeSchema,
  ownerId: walletOwnerIdSchema,
  currencyCode: currencyCodeSchema,
});
export type CreateWalletBody = z.infer<typeof createWalletBodySchema>;

/** A wallet as the API shows it: its balance is read from the ledger when the wallet is read. */
export const walletSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  /** The environment of the key that created it; the other environment does not see it. */
  environment: environmentSchema,
  ownerType: walletOwnerTypeSchema,
  ownerId: z.string(),
  currencyCode: z.string(),
  /** Credits minus debits of the wallet's ledger account, at the currency's scale. */
  balance: amountStringSchema,
  status: walletStatusSchema,
  createdAt: timestampSchema,
});
export type Wallet = z.infer<typeof walletSchema>;
export const walletPageSchema = pageSchema(walletSchema);

export const walletQuerySchema = pageQuerySchema.extend({
  ownerType: walletOwnerTypeSchema.optional(),
  ownerId: walletOwnerIdSchema.optional(),
  currencyCode: currencyCodeSchema.optional(),
  status: walletStatusSchema.optional(),
  ...createdRangeQueryShape,
  ...sortQueryShape(['createdAt']),
});
export type WalletQuery = z.infer<typeof walletQuerySchema>;

/** Freeze and unfreeze say why; the reason goes into the audit trail. */
export const walletStatusChangeBodySchema = z.object({
  reason: z.string().trim().min(1).max(500),
});
export type WalletStatusChangeBody = z.infer<typeof walletStatusChangeBodySchema>;

/**
 * The wallet routes, each with its precise schema types (for typed clients such as the SDK);
 * WALLET_ROUTES is the same routes as a list for the gateway and the OpenAPI document.
 */
export const walletRoutes = {
  create: {
    method: 'post',
    path: '/v1/wallets',
    operationId: 'wallets.create',
    idempotencyKey: 'optional',
    summary: 'Create a wallet: one per owner and currency in a tenant and environment (409 WALLET_EXISTS names the existing one)',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:create',
    body: createWalletBodySchema,
    success: { status: 201, schema: walletSchema },
    errors: ['CURRENCY_NOT_ALLOWED', 'WALLET_EXISTS'],
  },
  list: {
    method: 'get',
    path: '/v1/wallets',
    operationId: 'wallets.list',
    summary: `List wallets, newest first (sort=createdAt: oldest first), with their balances; ownerType with ownerId finds an owner's wallets through an index. ${boundedFiltersNote('on status, currencyCode, createdFrom, createdTo, or ownerType or ownerId alone')}`,
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: walletQuerySchema,
    success: { status: 200, schema: walletPageSchema },
  },
  get: {
    method: 'get',
    path: '/v1/wallets/{id}',
    operationId: 'wallets.get',
    summary: 'Get a wallet with its balance as the ledger holds it now',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    success: { status: 200, schema: walletSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
  entries: {
    method: 'get',
    path: '/v1/wallets/{id}/entries',
    operationId: 'wallets.entries',
    summary:
      "The wallet's statement: its journal lines, newest first, each with the balance after it; createdFrom (inclusive) and createdTo (exclusive) bound it by the lines' stamps",
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: statementQuerySchema,
    success: { status: 200, schema: statementPageSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
  balance: {
    method: 'get',
    path: '/v1/wallets/{id}/balance',
    operationId: 'wallets.balanceAt',
    summary: `The wallet's balance ${BALANCE_AT_SUMMARY}`,
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: balanceAtQuerySchema,
    success: { status: 200, schema: walletBalanceAtSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
  freeze: {
    method: 'post',
    path: '/v1/wallets/{id}/freeze',
    operationId: 'wallets.freeze',
    summary: 'Freeze a wallet: once answered, no send from it can pass; it still receives. Audited',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:manage',
    body: walletStatusChangeBodySchema,
    success: { status: 200, schema: walletSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
  unfreeze: {
    method: 'post',
    path: '/v1/wallets/{id}/unfreeze',
    operationId: 'wallets.unfreeze',
    summary: 'Unfreeze a wallet: it can send again. Audited',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:manage',
    body: walletStatusChangeBodySchema,
    success: { status: 200, schema: walletSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
} as const satisfies Record<string, RouteContract>;

export const WALLET_ROUTES: RouteContract[] = Object.values(walletRoutes);
