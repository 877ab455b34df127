import { type Direction, type Environment, formatAmount, type JournalEntry, type JournalKind } from '@wallet/contracts';
import { boundedList, type CandidateTest, type Db, type SnapshotBounds, snapshotBounds, type Tx } from '@wallet/kit';
import type { Knex } from 'knex';
import { windowSeqs, type WindowSeqs } from './journal-stamps';
import { entriesOfScopeSql, scopeKeySql, scopeOrderSql, scopeSeqRangeSql, type TenantScope } from './journal-scope';

interface EntryRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  kind: JournalKind;
  reference_type: string;
  reference_id: string;
  reverses_entry_id: string | null;
  created_at: Date;
}

interface LineRow {
  entry_seq: string;
  line_no: number;
  account_id: string;
  account_name: string;
  wallet_id: string | null;
  direction: Direction;
  amount: string;
  currency_code: string;
}

export interface JournalFilter {
  kind?: string | undefined;
  accountName?: string | undefined;
  walletId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  beforeSeq?: string | undefined;
  limit: number;
}

/** The lines of the entries with these seqs, by entry seq; a line's currency is its account's. */
async function linesOf(db: Db, entrySeqs: string[]): Promise<Map<string, LineRow[]>> {
  const byEntry = new Map<string, LineRow[]>();
  if (entrySeqs.length === 0) return byEntry;
  const rows: LineRow[] = await db('journal_lines as l')
    .join('accounts as a', 'a.num', 'l.account_num')
    .whereIn('l.entry_seq', entrySeqs)
    .orderBy([{ column: 'l.entry_seq' }, { column: 'l.line_no' }])
    .select(
      db.raw('l.entry_seq::text AS entry_seq'),
      'l.line_no',
      'a.id as account_id',
      'a.name as account_name',
      'a.wallet_id',
      'l.direction',
      'l.amount',
      'a.currency_code',
    );
  for (const row of rows) byEntry.set(row.entry_seq, [...(byEntry.get(row.entry_seq) ?? []), row]);
  return byEntry;
}

function toEntry(row: EntryRow, lines: LineRow[]): JournalEntry {
  return {
    id: row.id,
    kind: row.kind,
    tenantId: row.tenant_id,
    environment: row.environment,
    reference: { type: row.reference_type, id: row.reference_id },
    reversesEntryId: row.reverses_entry_id,
    lines: lines.map((line) => ({
      accountId: line.account_id,
      accountName: line.account_name,
      walletId: line.wallet_id,
      direction: line.direction,
      amount: formatAmount(line.amount, line.currency_code),
      currencyCode: line.currency_code,
    })),
    createdAt: row.created_at.toISOString(),
  };
}

/** The entries a list may show: one tenant and environment, or for the platform operator any of them. */
interface EntryBounds {
  tenantId?: string | undefined;
  environment?: Environment | undefined;
}

export interface SystemJournalFilter extends JournalFilter, EntryBounds {
  referenceType?: string | undefined;
  referenceId?: string | undefined;
}

/**
 * A page of a list, newest first, with one more entry than asked when there is more; or fewer,
 * when the list's filters are tested entry by entry and it examined all it may before filling the
 * page: `continueBeforeSeq` is then the oldest entry it examined (the next page goes on below it),
 * or null when nothing older is left to examine.
 */
export interface EntryListing {
  entries: Array<JournalEntry & { seq: string }>;
  continueBeforeSeq: string | null;
}

/** How many entries one request may test against filters no index serves (kind, time, ...). */
interface ExamineBudget {
  examineMax: number;
}

export async function listEntries(db: Db, scope: TenantScope, filter: JournalFilter & ExamineBudget): Promise<EntryListing> {
  return selectEntries(db, { ...filter, tenantId: scope.tenantId, environment: scope.environment });
}

/** As listEntries, for the platform operator: every tenant and environment unless the filter names one. */
export async function listEntriesAcrossTenants(db: Db, filter: SystemJournalFilter & ExamineBudget): Promise<EntryListing> {
  return selectEntries(db, filter);
}

/** The accounts of one scope a wallet or account-name filter names: a wallet has one, a name one per currency. */
async function accountNumsOf(db: Db, scope: TenantScope, filter: JournalFilter): Promise<string[]> {
  const query = db('accounts').where({ tenant_id: scope.tenantId, environment: scope.environment }).orderBy('num');
  if (filter.walletId) query.where('wallet_id', filter.walletId);
  if (filter.accountName) query.where('name', filter.accountName);
  return (await query.select(db.raw('num::text AS num'))).map((row: { num: string }) => row.num);
}

/**
 * The seqs of the entries with a line on these accounts, newest first: each account's lines on
 * journal_lines_account, merged in seq order, an entry with several of their lines once. A page
 * costs the lines it shows, however long ago the account last moved (a condition on each entry
 * instead walks the scope's entries back to the newest ones that match).
 */
function entriesOfAccountsSql(accountNums: readonly string[], seqs: SeqBounds): { sql: string; bindings: string[] } {
  const bounds = [
    { sql: ' AND l.entry_seq < ?', seq: seqs.beforeSeq },
    { sql: ' AND l.entry_seq > ?', seq: seqs.afterSeq },
  ].filter((bound): bound is { sql: string; seq: string } => bound.seq !== undefined);
  const perAccount = accountNums.map(
    () =>
      `(SELECT l.entry_seq FROM journal_lines l WHERE l.account_num = ?${bounds.map((bound) => bound.sql).join('')} ORDER BY l.entry_seq DESC)`,
  );
  return {
    sql: `(SELECT DISTINCT s.entry_seq FROM (${perAccount.join(' UNION ALL ')}) s ORDER BY s.entry_seq DESC)`,
    bindings: accountNums.flatMap((num) => [num, ...bounds.map((bound) => bound.seq)]),
  };
}

/** The seqs a list looks at: below its cursor and, for a time window, above where the window can start. */
interface SeqBounds {
  beforeSeq?: string | undefined;
  afterSeq?: string | undefined;
}

const ENTRY_COLUMNS = [
  'e.seq',
  'e.id',
  'e.tenant_id',
  'e.environment',
  'e.kind',
  'e.reference_type',
  'e.reference_id',
  'e.reverses_entry_id',
  'e.created_at',
];

/**
 * The entries an index finds for the filter, newest first: one scope's (journal_entries_scope_seq),
 * the lines of the accounts it names (journal_lines_account), a record's (reference_key), or the
 * whole journal's (the primary key); null when the filter names accounts the scope does not have.
 */
async function candidatesOf(db: Db, filter: SystemJournalFilter, seqs: SeqBounds): Promise<{ query: Knex.QueryBuilder } | null> {
  const query = db('journal_entries as e').orderBy('e.seq', 'desc').select(ENTRY_COLUMNS);
  // Only an absent bound is lifted: an empty tenant id must match nothing, never everything.
  const scope =
    filter.tenantId !== undefined && filter.environment !== undefined
      ? { tenantId: filter.tenantId, environment: filter.environment }
      : null;
  if (scope && (filter.walletId || filter.accountName)) {
    // Within a scope the accounts a filter names are few: their entries are found through their lines.
    const accountNums = await accountNumsOf(db, scope, filter);
    if (accountNums.length === 0) return null;
    const accounts = entriesOfAccountsSql(accountNums, seqs);
    query
      .join(db.raw(`${accounts.sql} AS ls`, accounts.bindings), 'ls.entry_seq', 'e.seq')
      .where({ 'e.tenant_id': scope.tenantId, 'e.environment': scope.environment });
  } else if (scope) {
    const { sql, bindings } = entriesOfScopeSql('e', scope);
    query.whereRaw(sql, bindings);
  }
  // reference_key() is what the index is on; the id itself is then rechecked.
  if (filter.referenceId)
    query.whereRaw('reference_key(e.reference_id) = reference_key(?)', [filter.referenceId]).where('e.reference_id', filter.referenceId);
  if (seqs.beforeSeq !== undefined) query.where('e.seq', '<', seqs.beforeSeq);
  if (seqs.afterSeq !== undefined) query.where('e.seq', '>', seqs.afterSeq);
  // Wrapped: a query builder is a thenable, which an async function's return would run.
  return { query };
}

/** The filters no index serves: tested on each candidate, newest first. */
function filtersOnCandidates(db: Db, filter: SystemJournalFilter): CandidateTest[] {
  const { tenantId, environment, kind, referenceType, from, to } = filter;
  const inScope = tenantId !== undefined && environment !== undefined;
  const tests: CandidateTest[] = [];
  if (!inScope && tenantId !== undefined) tests.push((query) => query.where('e.tenant_id', tenantId));
  if (!inScope && environment !== undefined) tests.push((query) => query.where('e.environment', environment));
  if (kind) tests.push((query) => query.where('e.kind', kind));
  if (referenceType) tests.push((query) => query.where('e.reference_type', referenceType));
  if (from) tests.push((query) => query.where('e.created_at', '>=', from));
  if (to) tests.push((query) => query.where('e.created_at', '<=', to));
  if (!inScope && (filter.walletId || filter.accountName)) tests.push((query) => query.whereExists(linesOnAccount(db, filter)));
  return tests;
}

/** Across tenants, an account filter is a test on each entry's lines. */
function linesOnAccount(db: Db, filter: SystemJournalFilter): Knex.QueryCallback {
  return function onAccount(this: Knex.QueryBuilder) {
    this.select(db.raw('1')).from('journal_lines as l').join('accounts as a', 'a.num', 'l.account_num').whereRaw('l.entry_seq = e.seq');
    if (filter.tenantId !== undefined) this.where('a.tenant_id', filter.tenantId);
    if (filter.environment !== undefined) this.where('a.environment', filter.environment);
    if (filter.accountName) this.where('a.name', filter.accountName);
    if (filter.walletId) this.where('a.wallet_id', filter.walletId);
  };
}

/**
 * A page costs at most `examineMax` candidates: a filter no index serves (a rare kind, a time
 * window long ago) would otherwise test every older entry of the scope, or of the journal, on one
 * request. Where its page stops short, the listing says where the examination stopped.
 */
async function selectEntries(db: Db, filter: SystemJournalFilter & ExamineBudget): Promise<EntryListing> {
  const region =
    filter.from || filter.to
      ? windowRegion(await windowSeqs(db, filter), filter.beforeSeq)
      : { seqs: { beforeSeq: filter.beforeSeq }, then: null };
  const candidates = region && (await candidatesOf(db, filter, region.seqs))?.query;
  if (!region || !candidates) return { entries: [], continueBeforeSeq: null };
  const tests = filtersOnCandidates(db, filter);
  const { rows, stoppedAt } = await boundedList<EntryRow>(db, {
    candidates,
    alias: 'e',
    order: [{ column: 'seq', order: 'desc' }],
    tests,
    limit: filter.limit,
    examineMax: filter.examineMax,
  });
  const lines = await linesOf(
    db,
    rows.map((row) => row.seq),
  );
  const entries = rows.map((row) => ({ ...toEntry(row, lines.get(row.seq) ?? []), seq: row.seq }));
  // boundedList says where it stopped only when a page fell short with candidates left.
  if (rows.length > filter.limit || stoppedAt !== null || region.then === null)
    return { entries, continueBeforeSeq: stoppedAt?.seq ?? null };
  // The newest part of a window is examined to its end: the page goes on in the sealed span, on the same budget again.
  const older = await selectEntries(db, { ...filter, beforeSeq: region.then, limit: filter.limit - rows.length });
  return { entries: [...entries, ...older.entries], continueBeforeSeq: older.continueBeforeSeq };
}

/**
 * Where a time window's list looks next, below its cursor: the entries after the sealed stamp
 * ranges first (newest, their stamps not summarized), then the span of the ranges that meet the
 * window; `then` is where to go on once the first part is examined to its end. Null when nothing
 * below the cursor can be in the window.
 */
function windowRegion(window: WindowSeqs, beforeSeq: string | undefined): { seqs: SeqBounds; then: string | null } | null {
  const sealed = BigInt(window.sealedThrough);
  const spanEnd = window.span ? BigInt(window.span.lastSeq) + 1n : null;
  if (beforeSeq === undefined || BigInt(beforeSeq) > sealed + 1n) {
    return { seqs: { beforeSeq, afterSeq: window.sealedThrough }, then: spanEnd?.toString() ?? null };
  }
  if (!window.span || spanEnd === null) return null;
  const before = BigInt(beforeSeq) < spanEnd ? BigInt(beforeSeq) : spanEnd;
  return { seqs: { beforeSeq: before.toString(), afterSeq: (BigInt(window.span.firstSeq) - 1n).toString() }, then: null };
}

export async function findEntry(db: Db, scope: TenantScope, id: string): Promise<JournalEntry | null> {
  return selectEntry(db, { id, tenant_id: scope.tenantId, environment: scope.environment });
}

/** Any tenant's entry, for the platform operator. */
export async function findEntryAcrossTenants(db: Db, id: string): Promise<JournalEntry | null> {
  return selectEntry(db, { id });
}

async function selectEntry(db: Db, where: { id: string; tenant_id?: string; environment?: Environment }): Promise<JournalEntry | null> {
  const row: EntryRow | undefined = await db('journal_entries')
    .where(where)
    .first(
      db.raw('seq::text AS seq'),
      'id',
      'tenant_id',
      'environment',
      'kind',
      'reference_type',
      'reference_id',
      'reverses_entry_id',
      'created_at',
    );
  if (!row) return null;
  const lines = await linesOf(db, [row.seq]);
  return toEntry(row, lines.get(row.seq) ?? []);
}

/** Entries by id, within the scope when one is given; ids the ledger does not have are left out. */
export async function findEntries(db: Db, scope: TenantScope | null, ids: readonly string[]): Promise<JournalEntry[]> {
  if (ids.length === 0) return [];
  const query = db('journal_entries').whereIn('id', [...new Set(ids)]);
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: EntryRow[] = await query.select(
    db.raw('seq::text AS seq'),
    'id',
    'tenant_id',
    'environment',
    'kind',
    'reference_type',
    'reference_id',
    'reverses_entry_id',
    'created_at',
  );
  const lines = await linesOf(
    db,
    rows.map((row) => row.seq),
  );
  return rows.map((row) => toEntry(row, lines.get(row.seq) ?? []));
}

export interface JournalReferenceRow {
  journalEntryId: string;
  tenantId: string;
  environment: Environment;
  kind: JournalKind;
  reference: { type: string; id: string };
  createdAt: string;
}

/**
 * Per scope, the entries naming a record of one type after that scope's seq, in seq order, each
 * scope a range scan on journal_entries_scope_seq from its mark (what lies after a mark is only
 * what is new, of every type, so no index per record type is kept for it); in one
 * repeatable-read snapshot whose bounds come along (see advanceHighWater).
 */
export async function referencesAfter(
  db: Db,
  filter: { referenceType: string; scopes: ReadonlyArray<TenantScope & { afterSeq: string }>; limitPerScope: number },
): Promise<{
  data: Array<JournalReferenceRow & { seq: string }>;
  snapshot: SnapshotBounds;
  scanned: Array<{ tenantId: string; environment: Environment; throughSeq: string }>;
}> {
  return db.transaction(
    async (tx) => {
      const snapshot = await snapshotBounds(tx);
      // Index probes only: compiling the statement (JIT) would cost more than running it.
      await tx.raw('SET LOCAL jit = off');
      const result = await tx.raw(
        `SELECT e.seq::text AS seq, e.id, e.tenant_id, e.environment, e.kind, e.reference_type, e.reference_id, e.created_at
           FROM unnest(?::text[], ?::text[], ?::bigint[]) WITH ORDINALITY AS s(tenant_id, environment, after_seq, n)
           CROSS JOIN LATERAL (
             SELECT * FROM journal_entries j
              WHERE ${scopeSeqRangeSql('j', scopeKeySql('s'), 's.after_seq')} AND j.tenant_id = s.tenant_id AND j.environment = s.environment
                AND j.reference_type = ?
              ORDER BY ${scopeOrderSql('j')} LIMIT ?
           ) e
          ORDER BY s.n, e.seq`,
        [
          filter.scopes.map((scope) => scope.tenantId),
          filter.scopes.map((scope) => scope.environment),
          filter.scopes.map((scope) => scope.afterSeq),
          filter.referenceType,
          filter.limitPerScope,
        ],
      );
      const rows = result.rows as Array<Omit<EntryRow, 'reverses_entry_id'>>;
      return {
        snapshot,
        scanned: await scannedThrough(tx, filter.scopes, rows, filter.limitPerScope),
        data: rows.map((row) => ({
          seq: row.seq,
          journalEntryId: row.id,
          tenantId: row.tenant_id,
          environment: row.environment,
          kind: row.kind,
          reference: { type: row.reference_type, id: row.reference_id },
          createdAt: row.created_at.toISOString(),
        })),
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * How far a scope's listing looked: to its newest entry when it found fewer than it was allowed
 * (nothing of the type lies between its last find and there), else to its last find. A mark
 * moves that far even past entries of other types, so a rare type is not looked for again
 * through the same entries on every run.
 */
async function scannedThrough(
  tx: Tx,
  scopes: ReadonlyArray<TenantScope & { afterSeq: string }>,
  rows: ReadonlyArray<{ seq: string; tenant_id: string; environment: string }>,
  limitPerScope: number,
): Promise<Array<{ tenantId: string; environment: Environment; throughSeq: string }>> {
  const found = new Map<string, { count: number; last: string }>();
  for (const row of rows) {
    const key = `${row.tenant_id}|${row.environment}`;
    found.set(key, { count: (found.get(key)?.count ?? 0) + 1, last: row.seq });
  }
  const whole = scopes.filter((scope) => (found.get(`${scope.tenantId}|${scope.environment}`)?.count ?? 0) < limitPerScope);
  const tops = new Map<string, string>();
  if (whole.length > 0) {
    const result = await tx.raw(
      `SELECT s.tenant_id, s.environment, t.seq::text AS seq
         FROM unnest(?::text[], ?::text[]) AS s(tenant_id, environment)
         CROSS JOIN LATERAL (
           SELECT j.seq FROM journal_entries j WHERE ${scopeKeySql('j')} = ${scopeKeySql('s')} AND j.tenant_id = s.tenant_id AND j.environment = s.environment
            ORDER BY ${scopeKeySql('j')} DESC, j.seq DESC LIMIT 1
         ) t`,
      [whole.map((scope) => scope.tenantId), whole.map((scope) => scope.environment)],
    );
    for (const row of result.rows as Array<{ tenant_id: string; environment: string; seq: string }>)
      tops.set(`${row.tenant_id}|${row.environment}`, row.seq);
  }
  return scopes.map((scope) => {
    const key = `${scope.tenantId}|${scope.environment}`;
    const last = found.get(key)?.last;
    const top = tops.get(key);
    const through = top ?? last ?? scope.afterSeq;
    return {
      tenantId: scope.tenantId,
      environment: scope.environment,
      throughSeq: BigInt(through) > BigInt(scope.afterSeq) ? through : scope.afterSeq,
    };
  });
}
