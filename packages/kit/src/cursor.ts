import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CreatedRange } from '@wallet/contracts/common';
import { findUnsafeText } from '@wallet/contracts/text';
import { z } from 'zod';
import type { Knex } from 'knex';
import { type Db, findInScope, type Tx } from './db';
import { boundedList, boundedPage, type CandidateTest, DEFAULT_LIST_EXAMINE_MAX, equalityTests } from './bounded-list';
import { currentContext } from './context';
import { AppError } from './errors';

const MAC_BYTES = 16;
/** Until a service names its secret (stores used on their own, in tests), cursors hold within this process. */
let cursorKey: Buffer = randomBytes(32);

/**
 * Cursors carry a MAC under a key derived from the secret every service shares (the internal
 * token secret): any instance of any service, also after a restart, reads a cursor any issued,
 * and a position it never issued (well formed or not) is refused without a query.
 */
export function useCursorSecret(secret: string): void {
  cursorKey = createHmac('sha256', secret).update('wallet cursor v1').digest();
}

/** Who may present a cursor: the path of the list that issued it, and the caller's surface, tenant and environment. */
export interface CursorBinding {
  path: string;
  surface: string;
  tenantId: string | null;
  environment: string | null;
}

/**
 * Binds every cursor this request issues or reads to `binding`: a cursor works only on the list
 * that issued it (its path, so one wallet's statement cursor is not another's), for the same
 * tenant and environment; any other is 400 INVALID_CURSOR. Set where the caller becomes known
 * (the internal token, the gateway's own routes). Outside a request (background work) cursors
 * carry no binding.
 */
export function bindCursors(binding: CursorBinding): void {
  const context = currentContext();
  if (context) context.cursorBinding = JSON.stringify([binding.path, binding.surface, binding.tenantId, binding.environment]);
}

function macOf(payload: string): string {
  const binding = currentContext()?.cursorBinding ?? '';
  return createHmac('sha256', cursorKey).update(binding).update('\n').update(payload).digest().subarray(0, MAC_BYTES).toString('base64url');
}

/**
 * The payload of a cursor whose MAC holds, else null. The MAC's text is compared, not its
 * bytes: base64url decoding ignores a last character's spare bits, so other texts would pass.
 */
function verifiedPayload(cursor: string): string | null {
  const dot = cursor.lastIndexOf('.');
  if (dot < 0) return null;
  const payload = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), 'utf8');
  const expected = Buffer.from(macOf(payload), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null;
}

const BIGINT_MAX = 9_223_372_036_854_775_807n;

/**
 * The fields a cursor is made of, each bounded as tightly as the column it positions on: a
 * cursor is client input, and one that is not a position a service could have issued (a
 * sequence past bigint, text PostgreSQL cannot hold) must be 400 INVALID_CURSOR, never a query.
 */
export const cursorFields = {
  /** A bigint sequence (bigserial columns). */
  seq: z
    .string()
    .regex(/^\d{1,19}$/)
    .refine((text) => BigInt(text) <= BIGINT_MAX),
  /** A line number within an entry. */
  lineNo: z.number().int().min(1).max(2_147_483_647),
  /** An id or other key of printable ASCII. */
  key: z.string().regex(/^[\x21-\x7e]{1,128}$/),
  timestamp: z.iso.datetime({ precision: 3 }),
};

/** Opaque cursors: base64url JSON of the sort key of the last item returned, and its MAC. */
export function encodeCursor(position: Record<string, string | number>): string {
  const payload = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
  return `${payload}.${macOf(payload)}`;
}

/** The one place a cursor is read: anything but a position of `shape` is 400 INVALID_CURSOR. */
export function decodeCursor<Shape extends z.ZodRawShape>(cursor: string | undefined, shape: Shape): z.infer<z.ZodObject<Shape>> | null {
  if (cursor === undefined) return null;
  try {
    const payload = verifiedPayload(cursor);
    if (payload === null) throw new Error('not issued here');
    const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const parsed = z.object(shape).safeParse(decoded);
    if (parsed.success && findUnsafeText(parsed.data) === null) return parsed.data;
  } catch {
    // fall through
  }
  throw new AppError('INVALID_CURSOR', 'The cursor is not one this list issued');
}

/** The page of a list read newest first along `seq`, with the cursor after its last row when another page follows. */
export interface SeqPage<Shown> {
  data: Shown[];
  nextCursor: string | null;
}

let listExamineMax = DEFAULT_LIST_EXAMINE_MAX;

/** Sets the bound of boundedNewestFirst for this process (`LIST_EXAMINE_MAX`). */
export function useListExamineMax(count: number): void {
  listExamineMax = count;
}

/** The bound of this process's record lists, for a list that calls boundedList itself. */
export function currentListExamineMax(): number {
  return listExamineMax;
}

/**
 * A page's rows, one more than its limit when another page follows, and, when a bounded
 * examination ran out before the page was full, the last row it examined: the next page goes on
 * below it.
 */
export interface SeqRows<Row> {
  rows: Row[];
  stoppedAt: { seq: string } | null;
}

/**
 * A list along `seq`, newest first: `read` gets the position the cursor names and returns one
 * row more than `limit` (newestFirst), which says whether another page follows, or those rows
 * with where a bounded examination stopped (boundedNewestFirst): a page may then come back
 * short, even empty, with a cursor that goes on.
 */
export async function pageBySeq<Row extends { seq: string }, Shown>(
  query: { cursor?: string | undefined; limit: number },
  read: (beforeSeq: string | undefined) => Promise<Row[] | SeqRows<Row>>,
  show: (row: Row) => Shown,
): Promise<SeqPage<Shown>> {
  const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
  const answer = await read(position?.seq);
  const { page, last } = boundedPage(Array.isArray(answer) ? { rows: answer, stoppedAt: null } : answer, query.limit);
  return { data: page.map(show), nextCursor: last ? encodeCursor({ seq: last.seq }) : null };
}

/** Where a page along seq starts (newest first: before `beforeSeq`), and how many rows it shows. */
export interface SeqPageFilter {
  beforeSeq?: string | undefined;
  limit: number;
}

/** A record list's creation times, from inclusive and to exclusive (ISO 8601 instants, as the list's query checked them). */
export type { CreatedRange };

/**
 * The tests of a creation-time range on the candidates' alias. No index serves it: rows are read
 * along `seq`, which only roughly follows `created_at` (a transaction's clock starts before it
 * takes its sequence), so the range is tested on each candidate, within the list's bound.
 */
export function createdRangeTests(alias: string, range: CreatedRange): CandidateTest[] {
  const tests: CandidateTest[] = [];
  const { createdFrom, createdTo } = range;
  if (createdFrom !== undefined) tests.push((candidates) => candidates.where(`${alias}.created_at`, '>=', createdFrom));
  if (createdTo !== undefined) tests.push((candidates) => candidates.where(`${alias}.created_at`, '<', createdTo));
  return tests;
}

/** A scope's rows of `table` newest first, before `beforeSeq`, where each column of `equal` that is defined holds its value. */
function scopeNewestFirst(
  db: Db | Tx,
  table: string,
  scope: { tenantId: string; environment: string },
  filter: SeqPageFilter,
  columns: ReadonlyArray<string | Knex.Raw>,
  equal: Record<string, string | undefined>,
  seqColumn: string,
): Knex.QueryBuilder {
  const query = db(table).where({ tenant_id: scope.tenantId, environment: scope.environment }).orderBy(seqColumn, 'desc').select(columns);
  for (const [column, value] of Object.entries(equal)) if (value !== undefined) query.where(column, value);
  if (filter.beforeSeq !== undefined) query.where(seqColumn, '<', filter.beforeSeq);
  return query;
}

/**
 * A scope's rows of `table` newest first, before `beforeSeq`, one more than `limit` (see
 * pageBySeq), where each column of `equal` that is defined holds its value; the caller may
 * narrow the query further before it runs. `seqColumn` names the table's sequence when it is not
 * `seq` (select it as `seq` for pageBySeq). For columns an index serves: the others belong in
 * boundedNewestFirst's `tested`.
 */
export function newestFirst(
  db: Db | Tx,
  table: string,
  scope: { tenantId: string; environment: string },
  filter: SeqPageFilter,
  columns: ReadonlyArray<string | Knex.Raw>,
  equal: Record<string, string | undefined> = {},
  seqColumn = 'seq',
): Knex.QueryBuilder {
  return scopeNewestFirst(db, table, scope, filter, columns, equal, seqColumn).limit(filter.limit + 1);
}

/** A record list's equality filters: those an index serves (`indexed`, with the scope and seq), and those tested row by row. */
export interface ListFilters {
  indexed?: Record<string, string | undefined>;
  tested: Record<string, string | undefined>;
  /** A further condition an index serves, beyond equal columns (an expression index). */
  narrow?: (candidates: Knex.QueryBuilder) => void;
}

/**
 * A list's filters when a partial index holds only the rows whose columns equal `inbox`'s values
 * (pending cases, slips awaiting their statement): a request for exactly those takes its
 * candidates from that index and tests its other filters on them (another index would walk the
 * rows the partial one leaves out, such as a wallet's decided cases). Any other request keeps
 * `filters`.
 */
export function inboxFilters(inbox: Record<string, string>, filters: ListFilters): ListFilters {
  const requested = { ...filters.indexed, ...filters.tested };
  if (!Object.entries(inbox).every(([column, value]) => requested[column] === value)) return filters;
  return { indexed: inbox, tested: Object.fromEntries(Object.entries(requested).filter(([column]) => !(column in inbox))) };
}

/**
 * newestFirst for filters no index serves (a status, a source): the candidates come from the
 * scope's seq index (or an `indexed` column's), and at most LIST_EXAMINE_MAX of them are tested
 * per request (boundedList), so a value no recent row has costs a request the same as any other,
 * never the scope's whole history. `columns` must include the tested ones.
 */
export async function boundedNewestFirst<Row extends { seq: string }>(
  db: Db,
  table: string,
  scope: { tenantId: string; environment: string },
  filter: SeqPageFilter & CreatedRange,
  columns: ReadonlyArray<string | Knex.Raw>,
  filters: ListFilters,
): Promise<SeqRows<Row>> {
  const candidates = scopeNewestFirst(db, table, scope, filter, columns, filters.indexed ?? {}, 'seq');
  filters.narrow?.(candidates);
  return boundedList<Row>(db, {
    candidates,
    alias: 'c',
    order: [{ column: 'seq', order: 'desc' }],
    tests: [...equalityTests('c', filters.tested), ...createdRangeTests('c', filter)],
    limit: filter.limit,
    examineMax: listExamineMax,
  });
}

/**
 * A record table's reads within a scope: a record by id, and a page of them newest first where
 * the defined filters hold (see boundedNewestFirst), each row as `toRecord` makes it.
 */
export function scopedRecords<Stored extends { seq: string }>(
  table: string,
  columns: readonly string[],
  toRecord: (row: object) => Stored,
) {
  return {
    find: async (db: Db | Tx, scope: { tenantId: string; environment: string }, id: string): Promise<Stored | null> => {
      const row = await findInScope(db, table, scope, id, columns);
      return row ? toRecord(row) : null;
    },
    /** Records by id, whatever their scope (ids the service itself made: a batch of the ledger's results names them). */
    findMany: async (db: Db | Tx, ids: readonly string[]): Promise<Stored[]> => {
      if (ids.length === 0) return [];
      const rows: object[] = await db(table)
        .whereIn('id', [...ids])
        .select(columns);
      return rows.map(toRecord);
    },
    list: async (
      db: Db,
      scope: { tenantId: string; environment: string },
      filter: SeqPageFilter & CreatedRange,
      filters: ListFilters,
    ): Promise<SeqRows<Stored>> => {
      const { rows, stoppedAt } = await boundedNewestFirst<{ seq: string }>(db, table, scope, filter, columns, filters);
      return { rows: rows.map(toRecord), stoppedAt };
    },
  };
}
