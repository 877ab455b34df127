import { z } from 'zod';

export const environmentSchema = z.enum(['test', 'live']);
export type Environment = z.infer<typeof environmentSchema>;

export const timestampSchema = z.iso.datetime({ precision: 3 });

/** Correlation ids a client may send (docs/decisions/wire-conventions.md). */
/** What a client's X-Correlation-Id may be; anything else is replaced by a generated one. */
export const CORRELATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const correlationIdSchema = z.string().regex(CORRELATION_ID_PATTERN);

export const PAGE_LIMIT_MAX = 200;
export const PAGE_LIMIT_DEFAULT = 50;

/** Query of every list: `limit` 1-200 (default 50) and an opaque `cursor`. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
  cursor: z.string().min(1).max(512).optional(),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** What a list's summary says of its filters no index serves: each request tests a bounded number of records. */
export function boundedFiltersNote(filters: string): string {
  return `Filters ${filters} test at most 10,000 records a request: a page may come back short, even empty, with a nextCursor that goes on; follow it until null`;
}

export function pageSchema<Item extends z.ZodType>(item: Item) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}
export interface Page<Item> {
  data: Item[];
  nextCursor: string | null;
}
