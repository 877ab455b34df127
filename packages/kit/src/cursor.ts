import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type CreatedRange, LIST_SORT_DEFAULT, type ListSort, parseListSort } from '@wallet/contracts/common';
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
  /** A sort column's value: amounts, the only columns a list orders by besides its sequence. */
  sortKey: z.string().regex(/^-?\d{1,30}(\.\d{1,18})?$/),
  sort: z.string().regex(/^-?[a-zA-Z]{1,32}$/),
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

/** Sets the bound of boundedSortedList for this process (`LIST_EXAMINE_MAX`). */
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

/** Where a page goes on from: the last row shown, by its seq and, in a list ordered by a column, that column's value. */
export interface ListPosition {
  seq: string;
  key?: string | undefined;
}

/** A list's order as its query reads: along a column (then seq), or along seq alone; descending unless ascending. */
export interface ListOrder {
  column: string | null;
  ascending: boolean;
}

/** The order a `sort` names: `createdAt` is the sequence (it follows creation), `amount` its column. */
export function listOrderOf(sort: ListSort | undefined): ListOrder {
  const { key, ascending } = parseListSort(sort);
  return { column: key === 'createdAt' ? null : key, ascending };
}

/** The columns a list in `order` is read along: the order's column, if any, then the sequence. */
function orderColumns(order: ListOrder, seqColumn = 'seq'): string[] {
  return order.column === null ? [seqColumn] : [order.column, seqColumn];
}

function positionOf(row: { seq: string }, order: ListOrder): ListPosition {
  if (order.column === null) return { seq: row.seq };
  const key: unknown = (row as Record<string, unknown>)[order.column];
  if (typeof key !== 'string') throw new Error(`a list ordered by ${order.column} read a row without it`);
  return { seq: row.seq, key };
}

/**
 * A page of a list in the order `query.sort` names (newest first when none): `read` gets the
 * position the cursor names and returns one row more than `limit` (newestFirst), which says
 * whether another page follows, or those rows with where a bounded examination stopped
 * (boundedSortedList): a page may then come back short, even empty, with a cursor that goes on.
 * A cursor holds its order, and goes on only in it.
 */
export async function pageInOrder<Row extends { seq: string }, Shown>(
  query: { cursor?: string | undefined; limit: number; sort?: ListSort | undefined },
  read: (after: ListPosition | undefined) => Promise<Row[] | SeqRows<Row>>,
  show: (row: Row) => Shown,
): Promise<SeqPage<Shown>> {
  const order = listOrderOf(query.sort);
  const sort = query.sort ?? LIST_SORT_DEFAULT;
  const cursor = decodeCursor(query.cursor, {
    seq: cursorFields.seq,
    key: cursorFields.sortKey.optional(),
    sort: cursorFields.sort.optional(),
  });
  if (cursor && ((cursor.sort ?? LIST_SORT_DEFAULT) !== sort || (cursor.key === undefined) !== (order.column === null))) {
    throw new AppError('INVALID_CURSOR', 'The cursor belongs to the list in another order');
  }
  const answer = await read(cursor ? { seq: cursor.seq, key: cursor.key } : undefined);
  const { page, last } = boundedPage(Array.isArray(answer) ? { rows: answer, stoppedAt: null } : answer, query.limit);
  const next = last ? { ...positionOf(last, order), ...(sort === LIST_SORT_DEFAULT ? {} : { sort }) } : null;
  return { data: page.map(show), nextCursor: next ? encodeCursor(next) : null };
}

/** pageInOrder for a list only ever newest first: `read` gets the seq the page goes on below. */
export function pageBySeq<Row extends { seq: string }, Shown>(
  query: { cursor?: string | undefined; limit: number },
  read: (beforeSeq: string | undefined) => Promise<Row[] | SeqRows<Row>>,
  show: (row: Row) => Shown,
): Promise<SeqPage<Shown>> {
  return pageInOrder({ cursor: query.cursor, limit: query.limit }, (after) => read(after?.seq), show);
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

/** Where a sortable list's page starts (after `after`, in the order `sort` names), and how many rows it shows. */
export interface SortedPageFilter {
  after?: ListPosition | undefined;
  sort?: ListSort | undefined;
  limit: number;
}

/**
 * A scope's rows of `table` in `order` (along a column then `seqColumn`, or along `seqColumn`),
 * after `after`, where each column of `equal` that is defined holds its value. An index on the
 * scope, then the column, then the sequence serves it in either direction: the position is one
 * row comparison.
 */
function scopeInOrder(
  db: Db | Tx,
  table: string,
  scope: { tenantId: string; environment: string },
  order: ListOrder,
  after: ListPosition | undefined,
  select: { columns: ReadonlyArray<string | Knex.Raw>; equal: Record<string, string | undefined>; seqColumn: string },
): Knex.QueryBuilder {
  const direction = order.ascending ? 'asc' : 'desc';
  const keys = orderColumns(order, select.seqColumn);
  const query = db(table)
    .where({ tenant_id: scope.tenantId, environment: scope.environment })
    .orderBy(keys.map((column) => ({ column, order: direction })))
    .select(select.columns);
  for (const [column, value] of Object.entries(select.equal)) if (value !== undefined) query.where(column, value);
  if (after !== undefined) {
    const values = order.column === null ? [after.seq] : [keyOf(after), after.seq];
    query.whereRaw(`(${keys.map(() => '??').join(', ')}) ${order.ascending ? '>' : '<'} (${values.map(() => '?').join(', ')})`, [
      ...keys,
      ...values,
    ]);
  }
  return query;
}

function keyOf(position: ListPosition): string {
  if (position.key === undefined) throw new Error('a position in a list ordered by a column names its value');
  return position.key;
}

const NEWEST_FIRST: ListOrder = { column: null, ascending: false };

/**
 * A scope's rows of `table` newest first, before `beforeSeq`, one more than `limit` (see
 * pageBySeq), where each column of `equal` that is defined holds its value; the caller may
 * narrow the query further before it runs. `seqColumn` names the table's sequence when it is not
 * `seq` (select it as `seq` for pageBySeq). For columns an index serves: the others belong in
 * boundedSortedList's `tested`.
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
  const after = filter.beforeSeq === undefined ? undefined : { seq: filter.beforeSeq };
  return scopeInOrder(db, table, scope, NEWEST_FIRST, after, { columns, equal, seqColumn }).limit(filter.limit + 1);
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
 * A sortable list's page, in the order `filter.sort` names, for filters no index serves (a status,
 * a source): the candidates come from the scope's index in that order (the seq index, or an
 * `indexed` column's; along an amount, the scope's amount index), and at most LIST_EXAMINE_MAX of them are tested
 * per request (boundedList), so a value no recent row has costs a request the same as any other,
 * never the scope's whole history. `columns` must include the tested ones.
 */
export async function boundedSortedList<Row extends { seq: string }>(
  db: Db,
  table: string,
  scope: { tenantId: string; environment: string },
  filter: SortedPageFilter & CreatedRange,
  columns: ReadonlyArray<string | Knex.Raw>,
  filters: ListFilters,
): Promise<SeqRows<Row>> {
  const order = listOrderOf(filter.sort);
  // Along a column, candidates come from its index alone: an index on another column, walked in
  // the column's order, would read every row of the scope for a rare value. Every filter is then tested.
  const alongSeq = order.column === null;
  const candidates = scopeInOrder(db, table, scope, order, filter.after, {
    columns,
    equal: alongSeq ? (filters.indexed ?? {}) : {},
    seqColumn: 'seq',
  });
  if (alongSeq) filters.narrow?.(candidates);
  const tested = alongSeq ? filters.tested : { ...filters.indexed, ...filters.tested };
  return boundedList<Row>(db, {
    candidates,
    alias: 'c',
    order: orderColumns(order).map((column) => ({ column, order: order.ascending ? 'asc' : 'desc' })),
    tests: [...equalityTests('c', tested), ...(!alongSeq && filters.narrow ? [filters.narrow] : []), ...createdRangeTests('c', filter)],
    limit: filter.limit,
    examineMax: listExamineMax,
  });
}

/**
 * A record table's reads within a scope: a record by id, and a page of them in the order asked where
 * the defined filters hold (see boundedSortedList), each row as `toRecord` makes it.
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
      filter: SortedPageFilter & CreatedRange,
      filters: ListFilters,
    ): Promise<SeqRows<Stored>> => {
      const { rows, stoppedAt } = await boundedSortedList<{ seq: string }>(db, table, scope, filter, columns, filters);
      return { rows: rows.map(toRecord), stoppedAt };
    },
  };
}
