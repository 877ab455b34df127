import { z } from 'zod';
import { environmentSchema, PAGE_LIMIT_MAX, pageQuerySchema } from '../common';
import { journalKindSchema, postingLineSchema } from '../messages/ledger-post.v1';
import { referenceTypeSchema } from './ledger';

// ---- Internal reads of a service's business records for reconciliation check 3 ----
// Payments runs the check; a service that posts under its own reference types (treasury's float
// deposits and withdrawals) answers these with what its own posting builders meant to write, so
// the expected lines are never re-derived outside the feature that posts them. System token only.

/** What the owning feature meant to post for one step of a record. */
export const expectedPostingSchema = z.object({
  /** The entry the record names; null when it names none although it should. */
  journalEntryId: z.string().nullable(),
  kind: journalKindSchema,
  reference: z.object({ type: z.string(), id: z.string() }),
  lines: z.array(postingLineSchema),
});
export type ExpectedPosting = z.infer<typeof expectedPostingSchema>;

/** A record whose money movement is done, with every entry it should have in the ledger. */
export const postedRecordSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  postings: z.array(expectedPostingSchema),
});
export type PostedRecord = z.infer<typeof postedRecordSchema>;

/** A record as an entry naming it needs to see it. */
export const recordStateSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  status: z.string(),
  /** Whether the record's money movement is done (entries may only name finished records). */
  finished: z.boolean(),
  /** The entries the record names; an entry naming the record must be one of them. */
  journalEntryIds: z.array(z.string()),
});
export type RecordState = z.infer<typeof recordStateSchema>;

/** `GET /internal/v1/business-records`: the reference types this service posts under. */
export const businessRecordTypesSchema = z.object({ data: z.array(referenceTypeSchema) });

/** `GET /internal/v1/business-records/{referenceType}/finished`: one scope's finished records, a page at a time. */
export const finishedRecordsQuerySchema = pageQuerySchema.extend({
  tenantId: z.string().min(1).max(64),
  environment: environmentSchema,
});
export const finishedRecordsPageSchema = z.object({ records: z.array(postedRecordSchema), cursor: z.string().nullable() });
export type FinishedRecordsPage = z.infer<typeof finishedRecordsPageSchema>;

/** `POST /internal/v1/business-records/{referenceType}/lookup`: records by id, whatever their status; within the scope when one is given. */
export const recordLookupBodySchema = z
  .object({
    ids: z.array(z.string().min(1).max(128)).max(PAGE_LIMIT_MAX),
    tenantId: z.string().min(1).max(64).optional(),
    environment: environmentSchema.optional(),
  })
  .refine((value) => (value.tenantId === undefined) === (value.environment === undefined), { message: 'tenantId and environment go together', path: ['environment'] });
export type RecordLookupBody = z.infer<typeof recordLookupBodySchema>;
export const recordLookupSchema = z.object({ data: z.array(recordStateSchema) });

/** One tenant's environment. */
export interface RecordScope {
  tenantId: string;
  environment: z.infer<typeof environmentSchema>;
}

/**
 * A kind of business record that posts to the ledger under its own reference type: payments'
 * transfers, deposits and payout cases read locally, treasury's records over the routes above.
 */
export interface BusinessRecordSource {
  referenceType: string;
  /** Finished records of one scope after `cursor` (null: from the start), at most `limit`, and where the next page starts. */
  finishedPage(scope: RecordScope, page: { cursor: string | null; limit: number }): Promise<FinishedRecordsPage>;
  /** Records by id, whatever their status; within the scope when one is given. */
  byIds(scope: RecordScope | null, ids: readonly string[]): Promise<RecordState[]>;
}
