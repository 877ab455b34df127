import { idSchema, walletIdInputSchema } from '../ids';
import { z } from 'zod';
import { ACCOUNTS } from '../chart-of-accounts';
import {
  createdRangeQueryShape,
  moneySortQueryShape,
  boundedFiltersNote,
  dayInputSchema,
  environmentSchema,
  offsetInstantInputSchema,
  pageQuerySchema,
  pageSchema,
  timestampSchema,
} from '../common';
import { amountInputSchema, isLosslessNumber, type LosslessNumber } from '../json';
import { amountStringSchema, currencyCodeSchema, TRANSACTION_LIMIT_NOTE } from '../money';
import type { RouteContract } from '../route-contract';
import { providerCodeSchema } from './momo-providers';
import { plainTextSchema } from '../text';

export const DEPOSIT_SOURCES = ['momo', 'bank_slip'] as const;
export const depositSourceSchema = z.enum(DEPOSIT_SOURCES);
export type DepositSource = z.infer<typeof depositSourceSchema>;

/** `completed`: the wallet is credited; `pending`: a bank slip awaiting verification; `rejected`: never credited. */
export const DEPOSIT_STATUSES = ['pending', 'completed', 'rejected'] as const;
export const depositStatusSchema = z.enum(DEPOSIT_STATUSES);
export type DepositStatus = z.infer<typeof depositStatusSchema>;

/** Why a deposit was rejected: an error code of the webhook, or NO_MATCHING_STATEMENT_ENTRY for a slip. */
export const DEPOSIT_REJECTION_REASONS = [
  'INVALID_WEBHOOK_SIGNATURE',
  'AMOUNT_EXCEEDS_LIMIT',
  'CURRENCY_NOT_ALLOWED',
  'CURRENCY_MISMATCH',
  'NO_MATCHING_STATEMENT_ENTRY',
] as const;
export type DepositRejectionReason = (typeof DEPOSIT_REJECTION_REASONS)[number];

/** Bank codes key the bank's float account, hence held to the characters the chart of accounts allows there. */
export const bankCodeSchema = z.string().regex(new RegExp(`^${ACCOUNTS.bankFloat.keyPattern}$`), 'must be 1-64 letters, digits, _ or -');

export const depositSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  walletId: z.string(),
  amount: amountStringSchema,
  currencyCode: z.string(),
  /** What the wallet is charged out of the amount: it is credited amount - fee. Never more than the amount. */
  fee: amountStringSchema,
  source: depositSourceSchema,
  /** The provider's transactionId (momo) or the slip reference (bank slip). */
  externalRef: z.string(),
  status: depositStatusSchema,
  rejectionReason: z.string().nullable(),
  /** The ledger's entry; null until the ledger confirmed it (and for deposits never posted). */
  journalEntryId: z.string().nullable(),
  /**
   * True while a completed deposit's credit is not yet posted by the ledger: the status is final
   * only once this is false (the answer was then 202, not 201).
   */
  awaitingLedger: z.boolean(),
  providerCode: z.string().nullable(),
  phoneNumber: z.string().nullable(),
  bankCode: z.string().nullable(),
  slipReference: z.string().nullable(),
  depositedAt: timestampSchema.nullable(),
  depositorName: z.string().nullable(),
  verifiedBy: z.string().nullable(),
  verifiedAt: timestampSchema.nullable(),
  createdAt: timestampSchema,
});
export type Deposit = z.infer<typeof depositSchema>;
export const depositPageSchema = pageSchema(depositSchema);

export const depositQuerySchema = pageQuerySchema.extend({
  walletId: idSchema('wallet').optional(),
  status: depositStatusSchema.optional(),
  source: depositSourceSchema.optional(),
  /** The rail's reference: a mobile money transactionId or a slip reference, exactly. */
  externalRef: plainTextSchema(128, { trim: false }).optional(),
  /** The number a mobile money deposit came from, exactly as the provider sent it. */
  phoneNumber: z.string().min(1).max(32).optional(),
  ...createdRangeQueryShape,
  ...moneySortQueryShape,
});
export type DepositQuery = z.infer<typeof depositQuerySchema>;

/**
 * The webhook's amount keeps its exact JSON token text (lossless parsing): the signature covers
 * that text, so `100.10` verifies only as `100.10`. A JSON string is taken as its content.
 */
const webhookAmountSchema = z.union([
  z.string(),
  z.custom<LosslessNumber>((value) => isLosslessNumber(value), 'must be a number').transform((value) => value.toString()),
]);

export const momoWebhookBodySchema = z.object({
  transactionId: plainTextSchema(128, { trim: false }),
  phoneNumber: z.string().min(1).max(32),
  amount: webhookAmountSchema,
  currencyCode: currencyCodeSchema,
  walletId: walletIdInputSchema,
  signature: z.string().min(1).max(256),
  timestamp: offsetInstantInputSchema,
  /** Optional: left out, the provider is the one of the wallet's tenant whose webhook secret verifies the signature. */
  providerCode: providerCodeSchema.optional(),
});
export type MomoWebhookBody = z.infer<typeof momoWebhookBodySchema>;

export const bankSlipBodySchema = z.object({
  walletId: walletIdInputSchema,
  amount: amountInputSchema,
  currencyCode: currencyCodeSchema,
  bankCode: bankCodeSchema,
  slipReference: plainTextSchema(128),
  depositedAt: offsetInstantInputSchema.optional(),
  depositorName: plainTextSchema(200).optional(),
});
export type BankSlipBody = z.infer<typeof bankSlipBodySchema>;

export const verifyDepositBodySchema = z.object({
  /** The team member (`usr_`) who verifies: active, with a role that grants deposits:verify. */
  actorId: plainTextSchema(128),
});
export type VerifyDepositBody = z.infer<typeof verifyDepositBodySchema>;

/**
 * A slip rejected for want of its statement line (NO_MATCHING_STATEMENT_ENTRY), verified before
 * the bank's statement arrived, is opened again once the evidence is in: pending, to be verified
 * again. The reason goes into the audit trail.
 */
export const reopenDepositBodySchema = z.object({
  /** The team member (`usr_`) who reopens: active, with a role that grants deposits:verify. */
  actorId: plainTextSchema(128),
  reason: plainTextSchema(500),
});
export type ReopenDepositBody = z.infer<typeof reopenDepositBodySchema>;

/** A statement line's date: `YYYY-MM-DD`. */
export const statementDateSchema = dayInputSchema;

export const bankStatementLineSchema = z.object({
  date: statementDateSchema,
  reference: plainTextSchema(128),
  amount: amountInputSchema,
  description: z.string().max(500).optional(),
});
export type BankStatementLine = z.infer<typeof bankStatementLineSchema>;

/** Lines per import: a 10 MiB CSV holds about this many short lines. */
export const BANK_STATEMENT_LINES_MAX = 200_000;

export const bankStatementJsonBodySchema = z.object({
  bankCode: bankCodeSchema,
  currencyCode: currencyCodeSchema,
  lines: z.array(bankStatementLineSchema).min(1).max(BANK_STATEMENT_LINES_MAX),
});
export type BankStatementJsonBody = z.infer<typeof bankStatementJsonBodySchema>;

/** With a `text/csv` body the bank and currency come in the query. */
export const bankStatementCsvQuerySchema = z.object({
  bankCode: bankCodeSchema,
  currencyCode: currencyCodeSchema,
});

export const bankStatementImportSchema = z.object({
  id: z.string(),
  bankCode: z.string(),
  currencyCode: z.string(),
  /** Lines stored by this import. */
  imported: z.number().int(),
  /** Lines already imported before (or repeated within this import): not stored twice. */
  duplicates: z.number().int(),
  createdAt: timestampSchema,
});
export type BankStatementImport = z.infer<typeof bankStatementImportSchema>;

/** A stored statement line: what was imported, and the deposit it verified once a slip matched it. */
export const statementLineRecordSchema = z.object({
  /** The line's number among all imported lines (a position, not a business key). */
  id: z.string(),
  importId: z.string(),
  bankCode: z.string(),
  currencyCode: z.string(),
  date: statementDateSchema,
  reference: z.string(),
  amount: amountStringSchema,
  description: z.string().nullable(),
  /** The bank slip this line verified; null while no slip matched it (an unmatched line). */
  depositId: z.string().nullable(),
  matchedAt: timestampSchema.nullable(),
});
export type StatementLineRecord = z.infer<typeof statementLineRecordSchema>;
export const statementLinePageSchema = pageSchema(statementLineRecordSchema);

export const statementLineQuerySchema = pageQuerySchema.extend({
  /** `false`: the lines no slip has matched yet, what a finance team chases; `true`: the matched ones. */
  matched: z
    .enum(['true', 'false'])
    .transform((text) => text === 'true')
    .optional(),
  importId: idSchema('bankStatementImport').optional(),
});
export type StatementLineQuery = z.infer<typeof statementLineQuerySchema>;

/** Statement imports may be CSV, and up to 10 MiB (docs/decisions/routes-and-bodies.md, docs/decisions/error-codes.md). */
export const BANK_STATEMENT_BODY = { mediaTypes: ['text/csv'], limitBytes: 10 * 1024 * 1024 } as const;

export const depositRoutes = {
  list: {
    method: 'get',
    path: '/v1/deposits',
    operationId: 'deposits.list',
    summary: `List deposits, newest first unless sort names another order (createdAt or amount, either way; by amount every filter is tested) (filters walletId, status, source; externalRef and phoneNumber through their indexes); source=bank_slip with status=pending (slips awaiting their statement) is read from its own index. ${boundedFiltersNote('on status and source otherwise, and on createdFrom and createdTo')}`,
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: depositQuerySchema,
    success: { status: 200, schema: depositPageSchema },
  },
  get: {
    method: 'get',
    path: '/v1/deposits/{id}',
    operationId: 'deposits.get',
    summary: 'Get a deposit',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    success: { status: 200, schema: depositSchema },
    errors: ['DEPOSIT_NOT_FOUND'],
  },
  momoWebhook: {
    method: 'post',
    path: '/v1/deposits/momo-webhook',
    operationId: 'deposits.momoWebhook',
    summary:
      "A mobile money provider's deposit notification, signed with its webhook secret: 201 on first delivery (202 with " +
      'awaitingLedger while the ledger has not posted the credit within the deadline), 200 with the same deposit on a repeat ' +
      "(the same transactionId of the provider in the wallet's tenant and environment: test and live never see each other's). " +
      "providerCode may be left out when exactly one of the tenant's providers' secrets verifies the signature. An unknown " +
      'wallet or provider and a signature that does not verify all answer the same 401 INVALID_WEBHOOK_SIGNATURE, without ' +
      "details; a stale timestamp is 401 STALE_WEBHOOK_TIMESTAMP; the tenant's limits are checked only once the signature verified (422)",
    surface: 'public',
    service: 'payments',
    body: momoWebhookBodySchema,
    success: { status: 201, schema: depositSchema },
    alsoAnswers: {
      200: "A repeat: the deposit of the provider's transactionId, as recorded",
      202: 'Completed, but the ledger has not posted the credit within the deadline: awaitingLedger is true until it does',
    },
    errors: [
      'INVALID_AMOUNT',
      'INVALID_WEBHOOK_SIGNATURE',
      'STALE_WEBHOOK_TIMESTAMP',
      'AMOUNT_EXCEEDS_LIMIT',
      'CURRENCY_MISMATCH',
      'CURRENCY_NOT_ALLOWED',
    ],
  },
  bankSlip: {
    method: 'post',
    path: '/v1/deposits/bank-slips',
    operationId: 'deposits.submitBankSlip',
    idempotencyKey: 'optional',
    summary: `Submit a bank slip: a pending deposit, credited only once verified against an imported statement; ${TRANSACTION_LIMIT_NOTE}`,
    surface: 'tenant',
    service: 'payments',
    scope: 'wallet:deposit',
    body: bankSlipBodySchema,
    success: { status: 201, schema: depositSchema },
    errors: ['INVALID_AMOUNT', 'WALLET_NOT_FOUND', 'AMOUNT_EXCEEDS_LIMIT', 'CURRENCY_MISMATCH', 'CURRENCY_NOT_ALLOWED'],
  },
  verify: {
    method: 'post',
    path: '/v1/deposits/{id}/verify',
    operationId: 'deposits.verify',
    summary:
      'Verify a pending bank slip against the imported statements: completed and credited (202 with awaitingLedger while the ' +
      'ledger has not posted the credit within the deadline), or rejected (NO_MATCHING_STATEMENT_ENTRY). actorId must be an ' +
      'active member of the tenant whose role grants deposits:verify (else 403 ACTOR_NOT_PERMITTED) and, when the request ' +
      'declares an actor, that actor (else 403 ACTOR_MISMATCH); a refused verifier changes nothing',
    surface: 'tenant',
    service: 'payments',
    scope: 'deposits:verify',
    body: verifyDepositBodySchema,
    success: { status: 200, schema: depositSchema },
    alsoAnswers: { 202: 'Completed, but the ledger has not posted the credit within the deadline: awaitingLedger is true until it does' },
    errors: ['ACTOR_NOT_PERMITTED', 'DEPOSIT_NOT_FOUND', 'DEPOSIT_NOT_PENDING'],
  },
  reopen: {
    method: 'post',
    path: '/v1/deposits/{id}/reopen',
    operationId: 'deposits.reopen',
    summary:
      'Reopen a bank slip rejected with NO_MATCHING_STATEMENT_ENTRY (verified before its statement line was imported): pending ' +
      'again, with the reason in the audit trail and a deposit.pending event, to be verified once the line is in. Any other ' +
      'deposit is 409 DEPOSIT_NOT_REOPENABLE. actorId is held to the rules of verify',
    surface: 'tenant',
    service: 'payments',
    scope: 'deposits:verify',
    body: reopenDepositBodySchema,
    success: { status: 200, schema: depositSchema },
    errors: ['ACTOR_NOT_PERMITTED', 'DEPOSIT_NOT_FOUND', 'DEPOSIT_NOT_REOPENABLE'],
  },
  importStatement: {
    method: 'post',
    path: '/v1/bank-statements',
    operationId: 'deposits.importStatement',
    idempotencyKey: 'optional',
    summary:
      'Import bank statement lines: JSON as documented, or text/csv (header date,reference,amount,description; query bankCode, currencyCode), up to 10 MiB',
    surface: 'tenant',
    service: 'payments',
    scope: 'deposits:verify',
    body: bankStatementJsonBodySchema,
    bodyOptIn: BANK_STATEMENT_BODY,
    success: { status: 201, schema: bankStatementImportSchema },
    errors: ['INVALID_AMOUNT'],
  },
  statementLines: {
    method: 'get',
    path: '/v1/bank-statements/lines',
    operationId: 'deposits.statementLines',
    summary:
      'Imported bank statement lines, newest first (filters matched, importId): an unmatched line is money the bank received that no verified slip accounts for yet',
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    query: statementLineQuerySchema,
    success: { status: 200, schema: statementLinePageSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const DEPOSIT_ROUTES: RouteContract[] = Object.values(depositRoutes);
