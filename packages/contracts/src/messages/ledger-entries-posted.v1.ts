import { z } from 'zod';
import { environmentSchema, timestampSchema } from '../common';
import { journalKindSchema, postingLineSchema } from './ledger-post.v1';

/** Entries per event at most: a full posting batch goes out as a few events, none of them huge. */
export const POSTED_ENTRIES_PER_EVENT_MAX = 100;

/** One journal entry exactly as committed, with its lines named as the posting command named them. */
export const postedEntrySchema = z.object({
  journalEntryId: z.string().min(1).max(64),
  tenantId: z.string().min(1).max(64),
  environment: environmentSchema,
  kind: journalKindSchema,
  reference: z.object({ type: z.string().min(1).max(64), id: z.string().min(1).max(128) }),
  reversesEntryId: z.string().max(64).optional(),
  lines: z.array(postingLineSchema).min(2),
  createdAt: timestampSchema,
});
export type PostedEntry = z.infer<typeof postedEntrySchema>;

/**
 * `ledger.entries-posted.v1` on routing key `ledger.entries-posted`: the entries one posting
 * batch committed, written to the ledger's outbox in that batch's transaction, so every entry
 * is published at least once and never before it exists. Read models (treasury analytics) feed
 * on it; the direct replies and `ledger.result.v1` stay as small as they were.
 */
export const ledgerEntriesPostedV1Schema = z.object({
  type: z.literal('ledger.entries-posted.v1'),
  entries: z.array(postedEntrySchema).min(1).max(POSTED_ENTRIES_PER_EVENT_MAX),
});
export type LedgerEntriesPostedV1 = z.infer<typeof ledgerEntriesPostedV1Schema>;
