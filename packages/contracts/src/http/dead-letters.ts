import { z } from 'zod';
import { integerInputSchema } from '../json';
import { DEAD_LETTER_QUEUES } from '../messages/topology';

/** Messages one list or one replay of many reads at most: they are held by the broker meanwhile. */
export const DEAD_LETTER_BATCH_MAX = 1000;
const DEAD_LETTER_BATCH_DEFAULT = 100;

export const deadLetterQueueSchema = z.enum(DEAD_LETTER_QUEUES);

/** One `x-death` record of the broker: the queue a message was taken from, and why. */
export const deadLetterDeathSchema = z.object({
  queue: z.string(),
  exchange: z.string(),
  routingKeys: z.array(z.string()),
  /** `delivery_limit` (its consumer failed it that many times), `rejected` (refused as unreadable), `expired`, `maxlen`. */
  reason: z.string(),
  count: z.number().int(),
  /** When it was first dead-lettered from that queue for that reason, to the second. */
  at: z.string().nullable(),
});
export type DeadLetterDeath = z.infer<typeof deadLetterDeathSchema>;

export const deadLetterSummarySchema = z.object({
  /** A digest of the message and of when it died: the same in every listing while it stays parked. */
  id: z.string(),
  /** The dead-letter queue it is parked in. */
  queue: z.string(),
  /** The queue whose consumer gave it up: a replay delivers it there again. null when the broker recorded none. */
  originalQueue: z.string().nullable(),
  reason: z.string().nullable(),
  deadLetteredAt: z.string().nullable(),
  messageId: z.string().nullable(),
  type: z.string().nullable(),
  bodyBytes: z.number().int(),
});
export type DeadLetterSummary = z.infer<typeof deadLetterSummarySchema>;

export const deadLetterSchema = deadLetterSummarySchema.extend({
  /** Newest first, as the broker keeps them. */
  deaths: z.array(deadLetterDeathSchema),
  properties: z.object({
    contentType: z.string().nullable(),
    contentEncoding: z.string().nullable(),
    correlationId: z.string().nullable(),
    replyTo: z.string().nullable(),
    timestamp: z.string().nullable(),
    appId: z.string().nullable(),
    persistent: z.boolean(),
  }),
  /** The message's own headers; the broker's (`x-death`, `x-first-death-*`, `x-delivery-count`) are in `deaths` or dropped. */
  headers: z.record(z.string(), z.unknown()),
  /** `json`: `body` is the decoded document (for reading: a replay sends the original bytes); `text`: UTF-8 text; `base64`: anything else. */
  bodyEncoding: z.enum(['json', 'text', 'base64']),
  body: z.unknown(),
});
export type DeadLetter = z.infer<typeof deadLetterSchema>;

export const deadLetterListQuerySchema = z.object({
  queue: deadLetterQueueSchema.optional(),
  limit: z.coerce.number().int().min(1).max(DEAD_LETTER_BATCH_MAX).default(DEAD_LETTER_BATCH_DEFAULT),
});
export type DeadLetterListQuery = z.infer<typeof deadLetterListQuerySchema>;

export const deadLetterListSchema = z.object({
  /** Each queue asked, with the messages ready in it; null when no service has declared it on this broker yet. */
  queues: z.array(z.object({ queue: z.string(), messages: z.number().int().nullable() })),
  /** Oldest first within each queue, up to `limit` in all. */
  data: z.array(deadLetterSummarySchema),
});
export type DeadLetterList = z.infer<typeof deadLetterListSchema>;

export const replayDeadLettersBodySchema = z
  .object({
    queue: deadLetterQueueSchema.optional(),
    limit: integerInputSchema({ min: 1, max: DEAD_LETTER_BATCH_MAX }).default(DEAD_LETTER_BATCH_DEFAULT),
  })
  .strict();
export type ReplayDeadLettersBody = z.infer<typeof replayDeadLettersBodySchema>;

export const deadLetterActionSchema = z.object({
  action: z.enum(['replayed', 'discarded']),
  deadLetter: deadLetterSummarySchema,
});
export type DeadLetterAction = z.infer<typeof deadLetterActionSchema>;

export const deadLettersReplayedSchema = z.object({ replayed: z.array(deadLetterSummarySchema) });
export type DeadLettersReplayed = z.infer<typeof deadLettersReplayedSchema>;
