import { z } from 'zod';
import { environmentSchema } from '../common';
import { ACCOUNT_NAME_PATTERN, ACCOUNTS } from '../chart-of-accounts';
import { amountStringSchema, currencyCodeSchema } from '../money';
import { directionSchema, journalKindSchema } from './journal-terms';

/**
 * W3C trace context of the span a command was sent from, and of a result the same: whoever
 * finishes a record from a result continues its request's trace. Present only while tracing is
 * on; not part of what makes two commands the same.
 */
export const traceContextShape = {
  traceparent: z.string().max(128).optional(),
  tracestate: z.string().max(512).optional(),
};

export { directionSchema, type Direction, JOURNAL_KINDS, journalKindSchema, type JournalKind } from './journal-terms';

/**
 * Account names of the chart of accounts (docs/chart-of-accounts.md). Wallet accounts are identified
 * by their walletId; every other account by (tenant, environment, currency, name).
 */
export const accountNameSchema = z.string().regex(ACCOUNT_NAME_PATTERN, 'is not a ledger account name');

export const commandIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/);

export const postingLineSchema = z
  .object({
    accountName: accountNameSchema,
    /** Required for wallet accounts, forbidden for the others. */
    walletId: z.string().min(1).max(64).optional(),
    direction: directionSchema,
    amount: amountStringSchema,
    currencyCode: currencyCodeSchema,
  })
  .refine((line) => ACCOUNTS.wallet.names(line.accountName) === (line.walletId !== undefined), {
    message: 'walletId is required for wallet accounts and only for them',
    path: ['walletId'],
  });
export type PostingLine = z.infer<typeof postingLineSchema>;

export const POSTING_LINES_MAX = 32;

/** `ledger.post.v1`: post one balanced journal entry. */
export const ledgerPostV1Schema = z.object({
  type: z.literal('ledger.post.v1'),
  commandId: commandIdSchema,
  tenantId: z.string().min(1).max(64),
  environment: environmentSchema,
  correlationId: z.string().max(128).optional(),
  ...traceContextShape,
  kind: journalKindSchema,
  reference: z.object({ type: z.string().min(1).max(64), id: z.string().min(1).max(128) }),
  reversesEntryId: z.string().max(64).optional(),
  lines: z.array(postingLineSchema).min(2).max(POSTING_LINES_MAX),
});
export type LedgerPostV1 = z.infer<typeof ledgerPostV1Schema>;

/** `ledger.wallet-status.v1`: open a wallet's account or change whether it may be debited. */
export const ledgerWalletStatusV1Schema = z.object({
  type: z.literal('ledger.wallet-status.v1'),
  commandId: commandIdSchema,
  tenantId: z.string().min(1).max(64),
  environment: environmentSchema,
  correlationId: z.string().max(128).optional(),
  ...traceContextShape,
  walletId: z.string().min(1).max(64),
  accountName: accountNameSchema.refine((name) => ACCOUNTS.wallet.names(name), 'must be a wallet account'),
  currencyCode: currencyCodeSchema,
  status: z.enum(['active', 'frozen']),
});
export type LedgerWalletStatusV1 = z.infer<typeof ledgerWalletStatusV1Schema>;

export const ledgerCommandSchema = z.discriminatedUnion('type', [ledgerPostV1Schema, ledgerWalletStatusV1Schema]);
/** The `type` of every command the ledger's queue takes. */
export const ledgerCommandTypeSchema = z.enum(['ledger.post.v1', 'ledger.wallet-status.v1']);
export type LedgerCommand = z.infer<typeof ledgerCommandSchema>;

export const LEDGER_REJECTION_CODES = [
  'VALIDATION_ERROR',
  'UNBALANCED_ENTRY',
  'INSUFFICIENT_FUNDS',
  'WALLET_FROZEN',
  'CURRENCY_MISMATCH',
  'INVALID_AMOUNT',
  'INVALID_ACCOUNT_NAME',
  'COMMAND_ID_REUSED',
  'JOURNAL_ENTRY_NOT_FOUND',
] as const;
export const ledgerRejectionCodeSchema = z.enum(LEDGER_REJECTION_CODES);

/**
 * `ledger.result.v1`: the answer to a command, sent on its reply-to and published as the
 * `ledger.posted` / `ledger.rejected` event. A repeated command gets its original result.
 */
export const ledgerResultV1Schema = z.object({
  type: z.literal('ledger.result.v1'),
  commandId: commandIdSchema,
  commandType: ledgerCommandTypeSchema.optional(),
  tenantId: z.string(),
  environment: environmentSchema,
  status: z.enum(['posted', 'rejected', 'applied']),
  journalEntryId: z.string().nullable(),
  reference: z.object({ type: z.string(), id: z.string() }).nullable(),
  error: z.object({ code: ledgerRejectionCodeSchema, message: z.string() }).nullable(),
  /** True when this answer repeats a result recorded earlier. */
  duplicate: z.boolean(),
  processedAt: z.string(),
  ...traceContextShape,
});
export type LedgerResultV1 = z.infer<typeof ledgerResultV1Schema>;

/**
 * `ledger.results.v1`: the ledger's event for the new results of one batch that share a status
 * and a reference type (one routing key), as one message rather than one per command.
 */
export const ledgerResultsV1Schema = z.object({
  type: z.literal('ledger.results.v1'),
  results: z.array(ledgerResultV1Schema).min(1),
});
export type LedgerResultsV1 = z.infer<typeof ledgerResultsV1Schema>;

/** The results a ledger event carries: several (`ledger.results.v1`) or one (`ledger.result.v1`); null for anything else. */
export function parseLedgerResults(payload: unknown): LedgerResultV1[] | null {
  if (typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'ledger.results.v1') {
    const parsed = ledgerResultsV1Schema.safeParse(payload);
    return parsed.success ? parsed.data.results : null;
  }
  const parsed = ledgerResultV1Schema.safeParse(payload);
  return parsed.success ? [parsed.data] : null;
}

/**
 * `ledger.replies.v1`: the answers to several commands of one batch that named the same
 * reply-to queue, as one message (a lone answer goes as `ledger.result.v1`). Each carries the
 * correlation id its command was sent with.
 */
export const ledgerRepliesV1Schema = z.object({
  type: z.literal('ledger.replies.v1'),
  replies: z.array(z.object({ correlationId: z.string().nullable(), result: ledgerResultV1Schema })).min(1),
});
export type LedgerRepliesV1 = z.infer<typeof ledgerRepliesV1Schema>;

/**
 * The answers a reply message carries, whichever of the two shapes it has; null for a message
 * that is neither. `correlationId` is the message's own for a lone `ledger.result.v1`.
 */
export function parseLedgerReplies(
  payload: unknown,
  correlationId: string | null,
): Array<{ correlationId: string | null; result: LedgerResultV1 }> | null {
  if (typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'ledger.replies.v1') {
    const parsed = ledgerRepliesV1Schema.safeParse(payload);
    return parsed.success ? parsed.data.replies : null;
  }
  const parsed = ledgerResultV1Schema.safeParse(payload);
  return parsed.success ? [{ correlationId, result: parsed.data }] : null;
}

/** Commands one `ledger.commands.v1` message carries at most. */
export const LEDGER_COMMANDS_PER_MESSAGE_MAX = 100;

/**
 * `ledger.commands.v1`: several commands for the ledger's queue as one message (the outbox sends
 * the commands one turn or one pass publishes this way), each with the correlation id its answer
 * on the message's reply-to carries. The ledger decides and answers each as if it had come
 * alone, in order, and acks the message once all of them are recorded. Items are checked one by
 * one (an invalid command is answered VALIDATION_ERROR like a lone one), so they are `unknown` here.
 */
export const ledgerCommandsV1Schema = z.object({
  type: z.literal('ledger.commands.v1'),
  commands: z
    .array(z.object({ correlationId: z.string().nullable(), command: z.unknown() }))
    .min(1)
    .max(LEDGER_COMMANDS_PER_MESSAGE_MAX),
});
export type LedgerCommandsV1 = z.infer<typeof ledgerCommandsV1Schema>;
