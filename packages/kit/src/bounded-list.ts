import type { Knex } from 'knex';
import type { Db } from './db';

/** How many candidates a list tests per request against the filters no index serves, unless configured otherwise. */
export const DEFAULT_LIST_EXAMINE_MAX = 10_000;

/** A condition a list tests on each candidate row, on the candidates' alias. */
export type CandidateTest = (query: Knex.QueryBuilder) => void;

/** One test per column whose value is given: the column of the candidates (`alias`) equals it. */
export function equalityTests(alias: string, values: Record<string, string | number | boolean | undefined>): CandidateTest[] {
  return Object.entries(values).flatMap(([column, value]) =>
    value === undefined ? [] : [(candidates: Knex.QueryBuilder) => candidates.where(`${alias}.${column}`, value)],
  );
}

export interface BoundedListOptions {
  /** What an index finds for the list, in its order (`order`), on table alias `alias`. */
  candidates: Knex.QueryBuilder;
  alias: string;
  order: ReadonlyArray<{ column: string; order: 'asc' | 'desc' }>;
  /** The filters no index serves. */
  tests: readonly CandidateTest[];
  limit: number;
  /** How many candidates one request may test. */
  examineMax: number;
}

/**
 * One page of a list whose filters no index serves, at a bounded cost: at most `examineMax`
 * candidates are tested, so a rare value costs each request the same instead of every older row
 * at once. Returns up to `limit + 1` matches (one more says a next page exists) and, when the page
 * stops short with candidates left after those examined, the last candidate examined: the next
 * page goes on after it.
 */
export async function boundedList<Row>(db: Db, options: BoundedListOptions): Promise<{ rows: Row[]; stoppedAt: Row | null }> {
  const { candidates, alias, order, tests, limit, examineMax } = options;
  if (tests.length === 0) return { rows: (await candidates.clone().limit(limit + 1)) as Row[], stoppedAt: null };
  const query = db
    .from(candidates.clone().limit(examineMax).as(alias))
    .select(`${alias}.*`)
    .orderBy(order.map((key) => ({ column: `${alias}.${key.column}`, order: key.order })))
    .limit(limit + 1);
  for (const test of tests) test(query);
  const rows = (await query) as Row[];
  if (rows.length > limit) return { rows, stoppedAt: null };
  // The last candidate examined, and whether one follows it: a list whose end was examined has no next page.
  const last = (await candidates
    .clone()
    .offset(examineMax - 1)
    .limit(2)) as Row[];
  return { rows, stoppedAt: last.length === 2 ? (last[0] as Row) : null };
}

/**
 * A page of a bounded list's rows (limit + 1 fetched) and the row its cursor goes on from: the
 * page's last when another page follows, else where the examination stopped, else none.
 */
export function boundedPage<Row, Stop>(
  found: { rows: Row[]; stoppedAt: Stop | null },
  limit: number,
): { page: Row[]; last: Row | Stop | null } {
  const page = found.rows.slice(0, limit);
  return { page, last: found.rows.length > limit ? (page[page.length - 1] ?? null) : found.stoppedAt };
}
