import { idSchema } from '../ids';
import { z } from 'zod';
import { integerInputSchema } from '../json';
import {
  createdRangeQueryShape,
  environmentSchema,
  instantInputSchema,
  PAGE_LIMIT_MAX,
  pageQuerySchema,
  pageSchema,
  timestampSchema,
} from '../common';
import { accountNameSchema, directionSchema, journalKindSchema } from '../messages/ledger-post.v1';
import { amountStringSchema, currencyCodeSchema, signedAmountStringSchema } from '../money';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

export const journalLineSchema = z.object({
  accountId: z.string(),
  accountName: z.string(),
  walletId: z.string().nullable(),
  direction: directionSchema,
  amount: amountStringSchema,
  currencyCode: z.string(),
});

/** Journal entry (docs/decisions/response-shapes.md). */
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
  from: instantInputSchema.optional(),
  to: instantInputSchema.optional(),
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
  referenceId: plainTextSchema(128, { trim: false }).optional(),
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

/** Wallet statement line (docs/decisions/response-shapes.md). */
export const statementLineSchema = z.object({
  journalEntryId: z.string(),
  kind: journalKindSchema,
  direction: directionSchema,
  amount: amountStringSchema,
  balanceAfter: signedAmountStringSchema,
  createdAt: z.string(),
});
export const statementPageSchema = pageSchema(statementLineSchema);

/**
 * A statement's page, and the lines it may hold: stamped from `createdFrom` (inclusive) to
 * `createdTo` (exclusive). Stamps never decrease down an account's lines, so each bound is an
 * exact position found by bisection, not a filter tested line by line.
 */
export const statementQuerySchema = pageQuerySchema.extend(createdRangeQueryShape);
export type StatementQuery = z.infer<typeof statementQuerySchema>;

export const reconciliationCheckSchema = z.object({
  name: z.string(),
  status: z.enum(['ok', 'mismatch']),
  mismatches: z.array(z.record(z.string(), z.unknown())),
});
const seqText = z.string().regex(/^\d{1,19}$/);
const count = z.number().int().min(0);

/** What check 3 covered for one type of business record. */
export const recordsCoverageSchema = z.object({
  referenceType: z.string(),
  /** Records with a seq above this one (the lowest of the scopes' marks), and those still open within the lookback window, were compared with their entries. */
  afterRecordSeq: seqText,
  records: count,
  /** Entries naming a record of this type after this journal seq (the lowest of the scopes' marks) were pointed back at their record. */
  afterEntrySeq: seqText,
  entries: count,
});
export type RecordsCoverage = z.infer<typeof recordsCoverageSchema>;

/**
 * What a run verified. `incremental` (the GET routes): per tenant and environment, the journal
 * entries after that scope's checkpoint through the highest seq the run saw (`afterSeq` is the
 * lowest checkpoint among them), every line of those entries, and the accounts they moved summed
 * from their own checkpoints; every other account's balance is compared with its checkpoint.
 * `full` (a background run): everything from zero. `records`: per business record type, the
 * records and the entries naming them that check 3 compared.
 */
export const reconciliationCoverageSchema = z.object({
  mode: z.enum(['incremental', 'full']),
  journal: z.object({ afterSeq: seqText, throughSeq: seqText, entries: count, lines: count, accounts: count }).optional(),
  records: z.array(recordsCoverageSchema).optional(),
});
export type ReconciliationCoverage = z.infer<typeof reconciliationCoverageSchema>;

export const reconciliationResultSchema = z.object({
  status: z.enum(['ok', 'mismatch']),
  checks: z.array(reconciliationCheckSchema),
  checkedAt: timestampSchema,
  coverage: reconciliationCoverageSchema.optional(),
});
export type ReconciliationResult = z.infer<typeof reconciliationResultSchema>;

/**
 * The ledger's public reads, each with its precise schema types (for typed clients such as the
 * dashboard); LEDGER_ROUTES is the same routes as a list for the gateway and the OpenAPI document.
 */
export const ledgerRoutes = {
  journal: {
    method: 'get',
    path: '/v1/journal',
    operationId: 'journal.list',
    summary:
      'List journal entries, newest first. Filters no index serves (kind, from/to) test at most 10,000 entries a request: a page may come back short, even empty, with a nextCursor that goes on; follow it until null',
    surface: 'tenant',
    service: 'ledger',
    scope: 'journal:read',
    query: journalQuerySchema,
    success: { status: 200, schema: journalPageSchema },
  },
  entry: {
    method: 'get',
    path: '/v1/journal/{id}',
    operationId: 'journal.get',
    summary: 'Get one journal entry with its lines',
    surface: 'tenant',
    service: 'ledger',
    scope: 'journal:read',
    success: { status: 200, schema: journalEntrySchema },
    errors: ['JOURNAL_ENTRY_NOT_FOUND'],
  },
  accounts: {
    method: 'get',
    path: '/v1/ledger/accounts',
    operationId: 'ledger.accounts',
    summary: 'List ledger accounts with their balances',
    surface: 'tenant',
    service: 'ledger',
    scope: 'journal:read',
    query: ledgerAccountQuerySchema,
    success: { status: 200, schema: ledgerAccountPageSchema },
  },
  walletEntries: {
    method: 'get',
    path: '/v1/ledger/wallets/{walletId}/entries',
    operationId: 'ledger.walletEntries',
    summary: "A wallet account's statement with running balance; createdFrom and createdTo bound it by the lines' stamps",
    surface: 'tenant',
    service: 'ledger',
    scope: 'journal:read',
    query: statementQuerySchema,
    success: { status: 200, schema: statementPageSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
  reconciliation: {
    method: 'get',
    path: '/v1/ledger/reconciliation',
    operationId: 'ledger.reconciliation',
    summary: 'Run ledger reconciliation checks 1 and 2 now',
    surface: 'tenant',
    service: 'ledger',
    scope: 'analytics:read',
    success: { status: 200, schema: reconciliationResultSchema },
  },
  systemReconciliation: {
    method: 'get',
    path: '/v1/system/ledger/reconciliation',
    operationId: 'system.reconciliation',
    summary: 'Run ledger reconciliation checks 1 and 2 across all tenants',
    surface: 'system',
    service: 'ledger',
    success: { status: 200, schema: reconciliationResultSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const LEDGER_ROUTES: RouteContract[] = Object.values(ledgerRoutes);

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

/** Entries per internal lookup: reconciliation asks for a run's worth in few round trips. */
export const JOURNAL_LOOKUP_MAX = 1000;

/** `POST /internal/v1/journal/entries/lookup`: entries by id, at most JOURNAL_LOOKUP_MAX of them, within the scope when one is given. */
export const journalEntryLookupBodySchema = z
  .object({ ids: z.array(z.string().min(1).max(64)).min(1).max(JOURNAL_LOOKUP_MAX), ...internalScopeShape })
  .refine(scopeIsWhole, SCOPE_MESSAGE);
export type JournalEntryLookupBody = z.infer<typeof journalEntryLookupBodySchema>;
/** The entries found, in no particular order; an id the ledger does not have (in the scope) is absent. */
export const journalEntryLookupSchema = z.object({ data: z.array(journalEntrySchema) });

/** Reference types are the business records' own names (`transfer`, `deposit`, ...). */
export const referenceTypeSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

/**
 * A count of journal entries and the sum of their terms (money-commands' entry-digest says how a term
 * is made; the ledger's SQL makes the same), so two services compare many entries by a number.
 */
export const digestSchema = z.object({
  entries: integerInputSchema({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  digest: z.string().regex(/^-?\d{1,40}$/),
});
export type DigestValue = z.infer<typeof digestSchema>;

/** The digest of the entries naming records of one type in one scope. */
export const recordDigestSchema = digestSchema.extend({
  tenantId: z.string().min(1).max(64),
  environment: environmentSchema,
  referenceType: referenceTypeSchema,
});
export type RecordDigest = z.infer<typeof recordDigestSchema>;

/** Per scope and record type, the digests of the entries naming records through a seq: what a full run's check 3 compares its records with. */
export const recordDigestsSchema = z.object({ throughSeq: seqText, digests: z.array(recordDigestSchema) });
export type RecordDigests = z.infer<typeof recordDigestsSchema>;

/** An entry naming a business record, as `POST /internal/v1/journal/references/after` lists them. */
export const journalReferenceSchema = z.object({
  journalEntryId: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  kind: journalKindSchema,
  reference: z.object({ type: z.string(), id: z.string() }),
  createdAt: z.string(),
});
export type JournalReference = z.infer<typeof journalReferenceSchema>;

/** A background run's state: queued, running, then succeeded (checks ran, whatever they found) or failed (they could not run). */
export const reconciliationRunStateSchema = z.enum(['queued', 'running', 'succeeded', 'failed']);
export type ReconciliationRunState = z.infer<typeof reconciliationRunStateSchema>;

/** How far a ledger full run is: entries checked with their lines (phase entries), then accounts compared with the sums of their lines (phase accounts); `linesEstimate`: the journal's size when known. */
export const ledgerFullRunProgressSchema = z.object({
  phase: z.enum(['entries', 'accounts', 'done']),
  accounts: z.number().int().min(0),
  entries: z.number().int().min(0),
  lines: z.number().int().min(0),
  linesEstimate: z.number().int().min(0).nullable(),
});
export type LedgerFullRunProgress = z.infer<typeof ledgerFullRunProgressSchema>;

/** `POST /internal/v1/reconciliation/full-runs` (202) and `GET .../{id}`: checks 1 and 2 re-verified from zero in the background. */
export const ledgerFullRunBodySchema = z.object({ ...internalScopeShape }).refine(scopeIsWhole, SCOPE_MESSAGE);
export const ledgerFullRunSchema = z.object({
  id: z.string(),
  state: reconciliationRunStateSchema,
  progress: ledgerFullRunProgressSchema.nullable(),
  result: reconciliationResultSchema.nullable(),
  /** Once it succeeded: the digests of the entries naming records, through the run's top seq, for check 3. */
  records: recordDigestsSchema.nullable(),
  error: z.string().nullable(),
});
export type LedgerFullRun = z.infer<typeof ledgerFullRunSchema>;

/**
 * `POST /internal/v1/journal/references/after`: per scope, the entries naming a record of one
 * type after that scope's seq, in seq order, at most `limitPerScope` each; with the bounds of the
 * snapshot they were read in, so the caller knows how far the seqs it saw are final.
 */
export const journalReferencesAfterBodySchema = z.object({
  referenceType: referenceTypeSchema,
  scopes: z.array(z.object({ tenantId: z.string().min(1).max(64), environment: environmentSchema, afterSeq: seqText })).max(100_000),
  limitPerScope: integerInputSchema({ min: 1, max: 100_000 }),
});
export type JournalReferencesAfterBody = z.infer<typeof journalReferencesAfterBodySchema>;
export const journalReferencesAfterSchema = z.object({
  data: z.array(journalReferenceSchema.extend({ seq: seqText })),
  snapshot: z.object({ xmin: seqText, xmax: seqText }),
  /**
   * Per scope, how far the listing looked: nothing of the type lies after the scope's seq and up to here but what `data` holds.
   * `snapshot`, on a ledger of several shards: the snapshot of the scope's shard, which its seqs are final against.
   */
  scanned: z.array(
    z.object({
      tenantId: z.string(),
      environment: environmentSchema,
      throughSeq: seqText,
      snapshot: z.object({ xmin: seqText, xmax: seqText }).optional(),
    }),
  ),
});

/** Entries per digest by id: a full run's check 3 sends a batch of records' entry ids at a time. */
export const JOURNAL_DIGEST_MAX = 5000;

/**
 * `POST /internal/v1/journal/entries/digest`: the digest of the entries with these ids, so a full
 * run compares a batch of records with their entries without the entries crossing HTTP; `named`,
 * the digest of those found that name a record of that type in that scope at or before `upToSeq`.
 */
export const journalEntryDigestBodySchema = z.object({
  ids: z.array(z.string().min(1).max(64)).min(1).max(JOURNAL_DIGEST_MAX),
  named: z.object({
    referenceType: referenceTypeSchema,
    tenantId: z.string().min(1).max(64),
    environment: environmentSchema,
    upToSeq: seqText,
  }),
});
export type JournalEntryDigestBody = z.infer<typeof journalEntryDigestBodySchema>;
export const journalEntryDigestSchema = z.object({ found: digestSchema, named: digestSchema });
export type JournalEntryDigest = z.infer<typeof journalEntryDigestSchema>;

/**
 * `POST /internal/v1/journal/digests/after`: per scope and record type, the digests of the entries
 * after `afterSeq` (those a full run's pass did not reach), through the newest seq once every
 * entry up to it is committed. In one scope, or every one.
 */
export const journalDigestsAfterBodySchema = z.object({ afterSeq: seqText, ...internalScopeShape }).refine(scopeIsWhole, SCOPE_MESSAGE);
export type JournalDigestsAfterBody = z.infer<typeof journalDigestsAfterBodySchema>;
