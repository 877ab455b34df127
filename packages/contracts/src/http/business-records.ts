import { z } from 'zod';
import { integerInputSchema } from '../json';
import { environmentSchema, PAGE_LIMIT_MAX } from '../common';
import { journalKindSchema, postingLineSchema } from '../messages/ledger-post.v1';
import { recordDigestsSchema, recordsCoverageSchema } from './ledger';

// ---- Reconciliation check 3: business records against their entries ----
// Each service that posts under its own reference types checks its own records, with what its
// own posting builders meant to write, so the expected lines are never derived twice and no
// service reads another's records. System token only.

/** What the owning feature meant to post for one step of a record. */
export const expectedPostingSchema = z.object({
  /** The entry the record names; null when it names none although it should. */
  journalEntryId: z.string().nullable(),
  kind: journalKindSchema,
  reference: z.object({ type: z.string(), id: z.string() }),
  lines: z.array(postingLineSchema),
});
export type ExpectedPosting = z.infer<typeof expectedPostingSchema>;

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

/** One tenant's environment. */
export interface RecordScope {
  tenantId: string;
  environment: z.infer<typeof environmentSchema>;
}

/**
 * `POST /internal/v1/business-records/check`: check 3 over the answering service's own records
 * (each service answers for its own: it compares its records with the entries it asks the ledger
 * for by id, and the entries naming its records with them), for one scope or every one; only the
 * mismatches and what was covered come back. `incremental` goes on from the service's marks;
 * `full` reads everything from zero (a background run's).
 */
export const businessRecordsCheckBodySchema = z
  .object({
    tenantId: z.string().min(1).max(64).optional(),
    environment: environmentSchema.optional(),
    mode: z.enum(['incremental', 'full']).default('incremental'),
    /** At most this many mismatches come back. */
    limit: integerInputSchema({ min: 1, max: PAGE_LIMIT_MAX }).default(100),
    /** `full` only: the ledger's full pass's digests of the entries naming records, which the records are compared with as sums; without them, record by record. */
    ledgerDigests: recordDigestsSchema.optional(),
  })
  .refine((value) => (value.tenantId === undefined) === (value.environment === undefined), {
    message: 'tenantId and environment go together',
    path: ['environment'],
  });
export const businessRecordsCheckSchema = z.object({
  mismatches: z.array(z.record(z.string(), z.unknown())),
  coverage: z.array(recordsCoverageSchema),
});
export type BusinessRecordsCheck = z.infer<typeof businessRecordsCheckSchema>;
