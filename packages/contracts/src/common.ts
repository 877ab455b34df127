import { z } from 'zod';

export const environmentSchema = z.enum(['test', 'live']);
export type Environment = z.infer<typeof environmentSchema>;

export const timestampSchema = z.iso.datetime({ precision: 3 });

/**
 * Every date and time the API takes lies in [1970-01-01, 9999-12-31) UTC
 * (docs/decisions/wire-conventions.md): outside it there are no records, and arithmetic on a
 * date (a default range 30 days back, a day rounded up) would leave what PostgreSQL and
 * JavaScript dates both hold (PostgreSQL has no year 0).
 */
export const EARLIEST_INSTANT_MS = Date.UTC(1970, 0, 1);
export const LATEST_INSTANT_MS = Date.UTC(9999, 11, 31);
export const DATE_DOMAIN_MESSAGE = 'must fall on or after 1970-01-01 and before 9999-12-31 (UTC)';

/** Whether an instant (milliseconds since the epoch) lies in the API's date domain. */
export function isWithinDateDomain(instantMs: number): boolean {
  return instantMs >= EARLIEST_INSTANT_MS && instantMs < LATEST_INSTANT_MS;
}

/** A date and time a query or body gives: UTC with milliseconds, as the API writes them, within the date domain. */
export const instantInputSchema = timestampSchema.refine((text) => isWithinDateDomain(Date.parse(text)), DATE_DOMAIN_MESSAGE);
/** A date and time with its offset (Z or ±hh:mm), within the date domain. */
export const offsetInstantInputSchema = z.iso
  .datetime({ offset: true })
  .refine((text) => isWithinDateDomain(Date.parse(text)), DATE_DOMAIN_MESSAGE);
/** A calendar day (`2026-11-30`) within the date domain. */
export const dayInputSchema = z.iso.date().refine((text) => isWithinDateDomain(Date.parse(`${text}T00:00:00Z`)), DATE_DOMAIN_MESSAGE);

/** Correlation ids a client may send (docs/decisions/wire-conventions.md). */
/** What a client's X-Correlation-Id may be; anything else is replaced by a generated one. */
export const CORRELATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const correlationIdSchema = z.string().regex(CORRELATION_ID_PATTERN);

export const PAGE_LIMIT_MAX = 200;
export const PAGE_LIMIT_DEFAULT = 50;

/**
 * A record list's creation-time range: `createdFrom` inclusive, `createdTo` exclusive. A list tests
 * it on a bounded number of records a request (boundedFiltersNote), as it does its other filters
 * no index serves.
 */
export const createdRangeQueryShape = {
  createdFrom: instantInputSchema.optional(),
  createdTo: instantInputSchema.optional(),
};
export type CreatedRange = { [Bound in keyof typeof createdRangeQueryShape]?: string | undefined };

/** What a sortable list orders by: its creation (the default, newest first) or its amount. */
export const LIST_SORT_KEYS = ['createdAt', 'amount'] as const;
export type ListSortKey = (typeof LIST_SORT_KEYS)[number];
/** A list's order: a key ascending, or descending with a leading `-` (`-createdAt`, newest first, when none is given). */
export type ListSort = ListSortKey | `-${ListSortKey}`;
export const LIST_SORT_DEFAULT: ListSort = '-createdAt';

/** What a `sort` names: its key and direction (none given: the default, newest first). */
export function parseListSort(sort: ListSort | undefined): { key: ListSortKey; ascending: boolean } {
  const name = sort ?? LIST_SORT_DEFAULT;
  return { key: name.replace(/^-/, '') as ListSortKey, ascending: !name.startsWith('-') };
}

/**
 * The `sort` of a list that orders by `keys` (docs/decisions/list-sorting.md): each key has an
 * index behind it, so a page in any order costs the same as newest first.
 */
export function sortQueryShape<const Key extends ListSortKey>(keys: readonly [Key, ...Key[]]) {
  const values = keys.flatMap((key) => [`-${key}` as const, key]) as [`-${Key}` | Key, ...Array<`-${Key}` | Key>];
  return {
    sort: z
      .enum(values)
      .optional()
      .describe(`The order: ${keys.join(' or ')}, ascending, or descending with a leading "-"; -createdAt (newest first) by default`),
  };
}

/** The order of a list of money records: by creation or by amount. */
export const moneySortQueryShape = sortQueryShape(['createdAt', 'amount']);

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
