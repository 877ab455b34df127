import { idSchema } from '../ids';
import { z } from 'zod';
import { environmentSchema, PAGE_LIMIT_MAX, pageQuerySchema, pageSchema, timestampSchema } from '../common';
import { accountNameSchema, directionSchema, journalKindSchema } from '../messages/ledger-post.v1';
import { amountStringSchema, currencyCodeSchema, signedAmountStringSchema } from '../money';

export const journalLineSchema = z.object({
  accountId: z.string(),
  accountName: z.string(),
  walletId: z.string().nullable(),
  direction: directionSchema,
  amount: amountStringSchema,
  currencyCode: z.string(),
});

/** Journal entry of api-decisions section 6. */
export const journalEntrySchema = z.object({
  id: z.string(),
  kind: journalKindSchema,
  tenantId: z.string(),
  environment: environmentSchema,
  reference: z.object({ type: z.string(), id: z.string() }),
  reversesEntryId: z.string().nullable(),
  lines: z.array(journalLineSchema),
  createdAt: z.string(),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export const journalPageSchema = pageSchema(journalEntrySchema);

export const journalQuerySchema = pageQuerySchema.extend({
  kind: journalKindSchema.optional(),
  accountName: accountNameSchema.optional(),
  walletId: idSchema('wallet').optional(),
  from: timestampSchema.optional(),
  to: timestampSchema.optional(),
});
export type JournalQuery = z.infer<typeof journalQuerySchema>;

/**
 * The platform operator's journal query: every tenant unless `tenantId` (and `environment`)
 * narrow it, plus the business record an entry names.
 */
export const systemJournalQuerySchema = journalQuerySchema.extend({
  tenantId: idSchema('tenant').optional(),
  environment: environmentSchema.optional(),
  referenceType: z.string().min(1).max(64).optional(),
  referenceId: z.string().min(1).max(128).optional(),
});
export type SystemJournalQuery = z.infer<typeof systemJournalQuerySchema>;

export const ledgerAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  currencyCode: z.string(),
  normalSide: directionSchema,
  walletId: z.string().nullable(),
  status: z.enum(['active', 'frozen']),
  /** In the account's normal direction: credits minus debits for credit-normal accounts. */
  balance: signedAmountStringSchema,
  createdAt: z.string(),
});
export type LedgerAccount = z.infer<typeof ledgerAccountSchema>;
export const ledgerAccountPageSchema = pageSchema(ledgerAccountSchema);
export const ledgerAccountQuerySchema = pageQuerySchema.extend({
  currencyCode: currencyCodeSchema.optional(),
  name: accountNameSchema.optional(),
  walletId: idSchema('wallet').optional(),
  /** Several wallets' accounts in one call: comma-separated wallet ids, at most a page of them. */
  walletIds: z
    .string()
    .max(PAGE_LIMIT_MAX * 65)
    .transform((text) => text.split(','))
    .pipe(z.array(idSchema('wallet')).min(1).max(PAGE_LIMIT_MAX))
    .optional(),
});

/** Wallet statement line of api-decisions section 6. */
export const statementLineSchema = z.object({
  journalEntryId: z.string(),
  kind: journalKindSchema,
  direction: directionSchema,
  amount: amountStringSchema,
  balanceAfter: signedAmountStringSchema,
  createdAt: z.string(),
});
export const statementPageSchema = pageSchema(statementLineSchema);

export const reconciliationCheckSchema = z.object({
  name: z.string(),
  status: z.enum(['ok', 'mismatch']),
  mismatches: z.array(z.record(z.string(), z.unknown())),
});
export const reconciliationResultSchema = z.object({
  status: z.enum(['ok', 'mismatch']),
  checks: z.array(reconciliationCheckSchema),
  checkedAt: timestampSchema,
});
export type ReconciliationResult = z.infer<typeof reconciliationResultSchema>;

// ---- Internal reads for reconciliation (system token only; never routed by the gateway) ----

/** Both or neither: a tenant's environment, or every tenant. */
const internalScopeShape = {
  tenantId: z.string().min(1).max(64).optional(),
  environment: environmentSchema.optional(),
};
function scopeIsWhole(value: { tenantId?: string | undefined; environment?: string | undefined }): boolean {
  return (value.tenantId === undefined) === (value.environment === undefined);
}
const SCOPE_MESSAGE = { message: 'tenantId and environment go together', path: ['environment'] };

/** `POST /internal/v1/journal/entries/lookup`: entries by id, at most a page of them, within the scope when one is given. */
export const journalEntryLookupBodySchema = z
  .object({ ids: z.array(z.string().min(1).max(64)).min(1).max(PAGE_LIMIT_MAX), ...internalScopeShape })
  .refine(scopeIsWhole, SCOPE_MESSAGE);
export type JournalEntryLookupBody = z.infer<typeof journalEntryLookupBodySchema>;
/** The entries found, in no particular order; an id the ledger does not have (in the scope) is absent. */
export const journalEntryLookupSchema = z.object({ data: z.array(journalEntrySchema) });

/** Reference types are the business records' own names (`transfer`, `deposit`, ...). */
export const referenceTypeSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

/** `GET /internal/v1/journal/references`: every entry naming a record of one type, oldest first. */
export const journalReferenceQuerySchema = pageQuerySchema.extend({ referenceType: referenceTypeSchema, ...internalScopeShape }).refine(scopeIsWhole, SCOPE_MESSAGE);
export type JournalReferenceQuery = z.infer<typeof journalReferenceQuerySchema>;
export const journalReferenceSchema = z.object({
  journalEntryId: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  kind: journalKindSchema,
  reference: z.object({ type: z.string(), id: z.string() }),
  createdAt: z.string(),
});
export type JournalReference = z.infer<typeof journalReferenceSchema>;
export const journalReferencePageSchema = pageSchema(journalReferenceSchema);
