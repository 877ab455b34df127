import {
  type Environment,
  type ExpectedPosting,
  formatAmount,
  JOURNAL_DIGEST_MAX,
  JOURNAL_LOOKUP_MAX,
  type JournalEntry,
  type JournalEntryDigest,
  type JournalEntryDigestBody,
  type PostingLine,
  type RecordDigests,
  type RecordScope,
  type RecordState,
} from '@wallet/contracts';
import { canonicalAmount } from './amounts';
import { type Digest, postingsDigest, sameDigest } from './entry-digest';
import { advanceHighWater, type Db, type HighWater, NO_HIGH_WATER, type SnapshotBounds, snapshotBounds } from '@wallet/kit';

// ---- Check 3 of reconciliation (docs/decisions/reconciliation.md), run by each service over its own records ----

export type Mismatch = Record<string, unknown>;

/** Collects mismatches up to a limit; a check stops adding once it is full. */
export class MismatchList {
  readonly items: Mismatch[] = [];
  constructor(readonly limit: number) {}

  add(mismatch: Mismatch): void {
    if (!this.full) this.items.push(mismatch);
  }

  get full(): boolean {
    return this.items.length >= this.limit;
  }
}

/** A record as check 3 needs it: its state, and what it meant to post for each step done. */
export interface CheckedRecord extends RecordState {
  seq: string;
  createdAt: Date;
  /** Whether it may still change (finish, post another step): watched for the lookback window. */
  open: boolean;
  postings: ExpectedPosting[];
}

/** One kind of record a service posts under its own reference type. */
export interface LocalRecordSource {
  referenceType: string;
  /** Its table: id, tenant_id, environment, seq (bigserial) and created_at, indexed on (tenant_id, environment, seq). */
  table: string;
  /** Records by id, in any scope. */
  byIds(db: Db, ids: readonly string[]): Promise<CheckedRecord[]>;
  /** A scope's records after a seq, in seq order, at most `limit`: one read where ids then byIds would be two (a full run reads every record). */
  after?(db: Db, scope: RecordScope, afterSeq: string, limit: number): Promise<CheckedRecord[]>;
  /**
   * The same page digested where it is stored: what a full run's first step makes of `after`'s
   * records, without bringing each one over. It must give exactly the digest of the postings its
   * records' `byIds` say (a test of the source shows it); one that differs only sends a full run
   * to compare that scope record by record.
   */
  digestAfter?(db: Db, scope: RecordScope, afterSeq: string, limit: number): Promise<DigestedRecords>;
}

/** A page of a scope's records, digested: how many were read, the last one's seq, the digest of the done ones' postings (entry-digest.ts), and the others' ids. */
export interface DigestedRecords {
  records: number;
  lastSeq: string | null;
  digest: Digest;
  /** Records still open, or with a step that names no entry: a full run reads them again later. */
  notDone: string[];
}

/** A record that posts one entry when it completes (a transfer, a deposit, a float deposit). */
export interface SingleEntryRecord {
  id: string;
  seq: string;
  tenantId: string;
  environment: Environment;
  status: string;
  createdAt: Date;
  journalEntryId: string | null;
}

/** A record as check 3 reads it: who it is, and what it says of its entries. */
export function checkedRecord(
  row: Omit<SingleEntryRecord, 'journalEntryId'>,
  facts: Pick<CheckedRecord, 'finished' | 'open' | 'journalEntryIds' | 'postings'>,
): CheckedRecord {
  return {
    id: row.id,
    seq: row.seq,
    tenantId: row.tenantId,
    environment: row.environment,
    status: row.status,
    createdAt: row.createdAt,
    ...facts,
  };
}

/**
 * The source of such records: a completed one has exactly the entry `posting` builds, a pending
 * one may still complete, any other (rejected, failed) never posts.
 */
export function singleEntrySource<Row extends SingleEntryRecord>(options: {
  referenceType: string;
  table: string;
  rowsByIds: (db: Db, ids: readonly string[]) => Promise<Row[]>;
  rowsAfter?: (db: Db, scope: RecordScope, afterSeq: string, limit: number) => Promise<Row[]>;
  posting: (row: Row) => Omit<ExpectedPosting, 'journalEntryId'>;
  digestAfter?: LocalRecordSource['digestAfter'];
}): LocalRecordSource {
  const toRecord = (row: Row): CheckedRecord =>
    checkedRecord(row, {
      finished: row.status === 'completed',
      open: row.status === 'pending',
      journalEntryIds: row.journalEntryId ? [row.journalEntryId] : [],
      postings: row.status === 'completed' ? [{ journalEntryId: row.journalEntryId, ...options.posting(row) }] : [],
    });
  const rowsAfter = options.rowsAfter;
  return {
    referenceType: options.referenceType,
    table: options.table,
    byIds: async (db, ids) => (await options.rowsByIds(db, ids)).map(toRecord),
    ...(rowsAfter
      ? {
          after: async (db: Db, scope: RecordScope, afterSeq: string, limit: number) =>
            (await rowsAfter(db, scope, afterSeq, limit)).map(toRecord),
        }
      : {}),
    ...(options.digestAfter ? { digestAfter: options.digestAfter } : {}),
  };
}

/** An entry naming a record, as the ledger lists them after a seq. */
export interface NamingEntry {
  journalEntryId: string;
  seq: string;
  tenantId: string;
  environment: string;
  reference: { type: string; id: string };
}

/** Entries naming records after each scope's seq, the snapshot they were read in, and per scope how far the listing looked. */
export interface NamingEntries {
  data: NamingEntry[];
  snapshot: SnapshotBounds;
  /** `snapshot`: the scope's own, when the ledger read scopes in different databases (its shards); else the one above. */
  scanned: Array<RecordScope & { throughSeq: string; snapshot?: SnapshotBounds | undefined }>;
}

/** What check 3 asks of the ledger. */
export interface JournalForRecords {
  /** Entries by id in any scope (so a report can say an entry sits in another one). */
  entries(ids: readonly string[]): Promise<Map<string, JournalEntry>>;
  /** Per scope, the entries naming this type after the scope's seq, at most `limitPerScope`, seq order, and the snapshot they were read in. */
  namingEntries(
    referenceType: string,
    scopes: ReadonlyArray<RecordScope & { afterSeq: string }>,
    limitPerScope: number,
  ): Promise<NamingEntries>;
  /** The digest of the entries with these ids, and of those naming a record of the type in the scope up to a seq (entry-digest.ts). */
  digest(body: JournalEntryDigestBody): Promise<JournalEntryDigest>;
  /** Per scope and record type, the digests of the entries after a seq through the newest final one; in one scope, or all (null). */
  digestsAfter(afterSeq: string, scope: RecordScope | null): Promise<RecordDigests>;
}

export interface RecordsCoverage {
  referenceType: string;
  afterRecordSeq: string;
  records: number;
  afterEntrySeq: string;
  entries: number;
}

export interface OwnRecordsCheckOptions {
  db: Db;
  journal: JournalForRecords;
  sources: readonly LocalRecordSource[];
  /** An open record (pending, or a case mid-way) is re-read this long after it was created. */
  lookbackMs: number;
  /** Records, and entries, read per scope per run; what is left waits for the next run. */
  limitPerScope?: number;
  now?: () => Date;
}

const MARKS_TABLE = 'reconciliation_marks';

/** Open records a scope's marks remember at most. */
export const OPEN_MAX = 10_000;
/** Records, and entries, an incremental check 3 reads per scope and type unless told otherwise. */
export const CHECK3_LIMIT_PER_SCOPE = 50_000;

export interface Marks {
  records: HighWater;
  entries: HighWater;
  open: Array<{ id: string; createdAt: string }>;
}

const scopeKey = (scope: { tenantId: string; environment: string }): string => `${scope.tenantId}|${scope.environment}`;
const maxSeq = (seqs: readonly string[], floor: string): string =>
  seqs.reduce((top, seq) => (BigInt(seq) > BigInt(top) ? seq : top), floor);
const minSeq = (seqs: readonly string[]): string =>
  seqs.reduce<string | null>((low, seq) => (low === null || BigInt(seq) < BigInt(low) ? seq : low), null) ?? '0';

async function readMarks(db: Db, referenceType: string, scopes: readonly RecordScope[]): Promise<Map<string, Marks>> {
  const result = await db.raw(
    `SELECT m.tenant_id, m.environment, record_verified_seq::text, record_seen_seq::text, record_seen_xmax::text,
            entry_verified_seq::text, entry_seen_seq::text, entry_seen_xmax::text, open_records
       FROM ${MARKS_TABLE} m JOIN unnest(?::text[], ?::text[]) AS s(tenant_id, environment) ON s.tenant_id = m.tenant_id AND s.environment = m.environment
      WHERE m.reference_type = ?`,
    [scopes.map((scope) => scope.tenantId), scopes.map((scope) => scope.environment), referenceType],
  );
  const marks = new Map<string, Marks>();
  for (const row of result.rows as Array<Record<string, string> & { open_records: Marks['open'] }>) {
    marks.set(scopeKey({ tenantId: row.tenant_id as string, environment: row.environment as string }), {
      records: {
        verifiedSeq: row.record_verified_seq as string,
        seenSeq: row.record_seen_seq as string,
        seenXmax: row.record_seen_xmax as string,
      },
      entries: {
        verifiedSeq: row.entry_verified_seq as string,
        seenSeq: row.entry_seen_seq as string,
        seenXmax: row.entry_seen_xmax as string,
      },
      open: row.open_records,
    });
  }
  return marks;
}

export async function writeMarks(db: Db, referenceType: string, marks: ReadonlyMap<string, Marks & RecordScope>): Promise<void> {
  if (marks.size === 0) return;
  const rows = [...marks.values()]
    .sort((a, b) => scopeKey(a).localeCompare(scopeKey(b)))
    .map((each) => ({
      tenant_id: each.tenantId,
      environment: each.environment,
      reference_type: referenceType,
      record_verified_seq: each.records.verifiedSeq,
      record_seen_seq: each.records.seenSeq,
      record_seen_xmax: each.records.seenXmax,
      entry_verified_seq: each.entries.verifiedSeq,
      entry_seen_seq: each.entries.seenSeq,
      entry_seen_xmax: each.entries.seenXmax,
      open_records: each.open,
    }));
  // Two runs at once both wrote marks their own reads justify: the last one stays.
  await db.raw(
    `INSERT INTO ${MARKS_TABLE} AS m
     SELECT * FROM jsonb_to_recordset(?::jsonb) AS u(tenant_id text, environment text, reference_type text, record_verified_seq bigint, record_seen_seq bigint,
       record_seen_xmax bigint, entry_verified_seq bigint, entry_seen_seq bigint, entry_seen_xmax bigint, open_records jsonb)
     ON CONFLICT (tenant_id, environment, reference_type) DO UPDATE SET
       record_verified_seq = EXCLUDED.record_verified_seq, record_seen_seq = EXCLUDED.record_seen_seq, record_seen_xmax = EXCLUDED.record_seen_xmax,
       entry_verified_seq = EXCLUDED.entry_verified_seq, entry_seen_seq = EXCLUDED.entry_seen_seq, entry_seen_xmax = EXCLUDED.entry_seen_xmax,
       open_records = EXCLUDED.open_records`,
    [JSON.stringify(rows)],
  );
}

/**
 * Every (tenant, environment) with rows in these tables (records, and wallets: an entry may name a
 * record in a scope that has none) or with marks: a loose index scan on an index of each table
 * leading with (tenant_id, environment), one probe per scope.
 */
export async function scopesWithRecords(db: Db, tables: readonly string[]): Promise<RecordScope[]> {
  const found = new Map<string, RecordScope>();
  for (const table of [...tables, MARKS_TABLE]) {
    const result = await db.raw(
      `WITH RECURSIVE s AS (
         (SELECT tenant_id, environment FROM ${table} ORDER BY tenant_id, environment LIMIT 1)
         UNION ALL
         SELECT n.tenant_id, n.environment FROM s CROSS JOIN LATERAL (
           SELECT tenant_id, environment FROM ${table} t WHERE (t.tenant_id, t.environment) > (s.tenant_id, s.environment) ORDER BY tenant_id, environment LIMIT 1
         ) n
       ) SELECT tenant_id, environment FROM s`,
    );
    for (const row of result.rows as Array<{ tenant_id: string; environment: RecordScope['environment'] }>)
      found.set(scopeKey({ tenantId: row.tenant_id, environment: row.environment }), {
        tenantId: row.tenant_id,
        environment: row.environment,
      });
  }
  return [...found.values()].sort((a, b) => scopeKey(a).localeCompare(scopeKey(b)));
}

/** Ids and seqs of the records after each scope's seq, in one snapshot whose bounds come along. */
export async function recordsAfter(
  db: Db,
  table: string,
  scopes: ReadonlyArray<RecordScope & { afterSeq: string }>,
  limitPerScope: number,
): Promise<{ rows: Array<{ id: string; seq: string; tenant_id: string; environment: string }>; snapshot: SnapshotBounds }> {
  return db.transaction(
    async (tx) => {
      const snapshot = await snapshotBounds(tx);
      // Index probes only: compiling the statement (JIT) would cost more than running it.
      await tx.raw('SET LOCAL jit = off');
      const result = await tx.raw(
        `SELECT r.id, r.seq::text AS seq, r.tenant_id, r.environment
           FROM unnest(?::text[], ?::text[], ?::bigint[]) AS s(tenant_id, environment, after_seq)
           CROSS JOIN LATERAL (
             SELECT id, seq, tenant_id, environment FROM ${table} r
              WHERE r.tenant_id = s.tenant_id AND r.environment = s.environment AND r.seq > s.after_seq
              ORDER BY r.seq LIMIT ?
           ) r`,
        [
          scopes.map((scope) => scope.tenantId),
          scopes.map((scope) => scope.environment),
          scopes.map((scope) => scope.afterSeq),
          limitPerScope,
        ],
      );
      return { rows: result.rows, snapshot };
    },
    { isolationLevel: 'repeatable read' },
  );
}

async function inBatches<Item, Result>(
  items: readonly Item[],
  size: number,
  work: (batch: Item[]) => Promise<Result[]>,
): Promise<Result[]> {
  const batches: Item[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  const results: Result[] = [];
  // A few at a time: the ledger answers them side by side without one run taking all its connections.
  for (let start = 0; start < batches.length; start += 4) {
    for (const each of await Promise.all(batches.slice(start, start + 4).map(work))) results.push(...each);
  }
  return results;
}

async function entriesByIds(journal: JournalForRecords, ids: readonly string[]): Promise<Map<string, JournalEntry>> {
  const found = await inBatches([...new Set(ids)], JOURNAL_LOOKUP_MAX, async (batch) => [...(await journal.entries(batch)).entries()]);
  return new Map(found);
}

// ---- comparing a record's postings with its entries ----

function lineText(line: {
  direction: string;
  accountName: string;
  amount: string;
  currencyCode: string;
  walletId?: string | null | undefined;
}): string {
  const wallet = line.walletId ? ` (${line.walletId})` : '';
  return `${line.direction} ${line.accountName}${wallet} ${formatAmount(line.amount, line.currencyCode)} ${line.currencyCode}`;
}

/** Amounts compared as decimals. Fields joined by NUL, which no name or id holds. */
function lineKey(line: {
  direction: string;
  accountName: string;
  amount: string;
  currencyCode: string;
  walletId?: string | null | undefined;
}): string {
  return `${line.direction}\0${line.accountName}\0${line.walletId ?? '\u0001'}\0${line.currencyCode}\0${canonicalAmount(line.amount)}`;
}

function lineDifferences(expected: readonly PostingLine[], actual: JournalEntry['lines']): { missing: string[]; unexpected: string[] } {
  const remaining = new Map<string, Array<(typeof actual)[number]>>();
  for (const line of actual) {
    const key = lineKey(line);
    const same = remaining.get(key);
    if (same) same.push(line);
    else remaining.set(key, [line]);
  }
  const missing: string[] = [];
  for (const line of expected) {
    const matches = remaining.get(lineKey(line));
    if (matches && matches.length > 0) matches.pop();
    else missing.push(lineText(line));
  }
  return { missing, unexpected: [...remaining.values()].flat().map(lineText) };
}

/** How an entry differs from the posting its record meant, as mismatch fields; null when it is exactly that posting, in the record's own scope. */
export function entryDifferences(
  posting: ExpectedPosting,
  entry: JournalEntry,
  record: { tenantId: string; environment: string },
): Record<string, unknown> | null {
  const problems: string[] = [];
  const details: Record<string, unknown> = {};
  if (entry.tenantId !== record.tenantId || entry.environment !== record.environment) {
    problems.push('journal_entry_in_other_scope');
    details.entryTenantId = entry.tenantId;
    details.entryEnvironment = entry.environment;
  }
  if (entry.reference.type !== posting.reference.type || entry.reference.id !== posting.reference.id) {
    problems.push('reference_differs');
    details.entryReference = entry.reference;
  }
  if (entry.kind !== posting.kind) {
    problems.push('kind_differs');
    details.expectedKind = posting.kind;
    details.entryKind = entry.kind;
  }
  const { missing, unexpected } = lineDifferences(posting.lines, entry.lines);
  if (missing.length > 0 || unexpected.length > 0) {
    problems.push('lines_differ');
    details.missingLines = missing;
    details.unexpectedLines = unexpected;
    details.expectedLines = posting.lines.map(lineText);
    details.entryLines = entry.lines.map(lineText);
  }
  return problems.length === 0 ? null : { differences: problems, ...details };
}

/**
 * Every posting of these records against its entry; answers the records found wrong. The
 * postings go by chunks: a chunk whose digest is the ledger's for the same entry ids is exactly
 * those entries (entry-digest.ts), so only a chunk that differs has its entries brought over
 * and compared one by one, to say what differs.
 */
export async function compareRecords(
  journal: JournalForRecords,
  referenceType: string,
  records: readonly CheckedRecord[],
  mismatches: MismatchList,
): Promise<Set<string>> {
  const wrong = new Set<string>();
  for (const chunk of recordChunks(records, JOURNAL_DIGEST_MAX)) {
    if (await sameAsLedger(journal, referenceType, chunk)) continue;
    for (const id of await compareOneByOne(journal, referenceType, chunk, mismatches)) wrong.add(id);
  }
  return wrong;
}

/** Records in runs of at most `postings` postings (a record's postings stay together). */
function recordChunks(records: readonly CheckedRecord[], postings: number): CheckedRecord[][] {
  const chunks: CheckedRecord[][] = [];
  let chunk: CheckedRecord[] = [];
  let size = 0;
  for (const record of records) {
    if (size + record.postings.length > postings && chunk.length > 0) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(record);
    size += record.postings.length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Whether every posting names an entry and the ledger's digest of those entries is the postings' own. */
async function sameAsLedger(journal: JournalForRecords, referenceType: string, records: readonly CheckedRecord[]): Promise<boolean> {
  const postings = records.flatMap((record) => record.postings.map((posting) => ({ scope: record, posting })));
  const named = postings.flatMap(({ scope, posting }) =>
    posting.journalEntryId === null ? [] : [{ scope, posting: { ...posting, journalEntryId: posting.journalEntryId } }],
  );
  // A posting without its entry is reported one by one.
  if (named.length < postings.length) return false;
  const first = named[0];
  if (!first) return true;
  // Nothing is named through seq 0: only the entries found by id count.
  const answer = await journal.digest({
    ids: named.map(({ posting }) => posting.journalEntryId),
    named: { referenceType, tenantId: first.scope.tenantId, environment: first.scope.environment, upToSeq: '0' },
  });
  return sameDigest(answer.found, postingsDigest(named));
}

async function compareOneByOne(
  journal: JournalForRecords,
  referenceType: string,
  records: readonly CheckedRecord[],
  mismatches: MismatchList,
): Promise<Set<string>> {
  const entries = await entriesByIds(
    journal,
    records.flatMap((record) => record.postings.flatMap((posting) => (posting.journalEntryId ? [posting.journalEntryId] : []))),
  );
  const wrong = new Set<string>();
  for (const record of records) {
    for (const posting of record.postings) {
      const base = {
        referenceType,
        recordId: record.id,
        tenantId: record.tenantId,
        environment: record.environment,
        journalEntryId: posting.journalEntryId,
      };
      const entry = posting.journalEntryId === null ? undefined : entries.get(posting.journalEntryId);
      const problem =
        posting.journalEntryId === null
          ? { problem: 'journal_entry_not_recorded' }
          : !entry
            ? { problem: 'journal_entry_not_found' }
            : entryDifferences(posting, entry, record);
      if (problem === null) continue;
      mismatches.add({ ...base, ...('problem' in problem ? problem : { problem: 'journal_entry_differs', ...problem }) });
      wrong.add(record.id);
    }
  }
  return wrong;
}

/** Entries naming a record: it must exist in their scope, be finished and name them back. Answers the entries found wrong. */
export function entriesPointAtRecords(
  referenceType: string,
  entries: readonly NamingEntry[],
  records: ReadonlyMap<string, CheckedRecord>,
  mismatches: MismatchList,
): Set<string> {
  const wrong = new Set<string>();
  for (const entry of entries) {
    const base = {
      referenceType,
      recordId: entry.reference.id,
      tenantId: entry.tenantId,
      environment: entry.environment,
      journalEntryId: entry.journalEntryId,
    };
    const record = records.get(entry.reference.id);
    let problem: Mismatch | null = null;
    if (!record) problem = { problem: 'record_not_found' };
    else if (record.tenantId !== entry.tenantId || record.environment !== entry.environment)
      problem = { problem: 'record_in_other_scope', recordTenantId: record.tenantId, recordEnvironment: record.environment };
    else if (!record.finished) problem = { problem: 'record_not_finished', recordStatus: record.status };
    else if (!record.journalEntryIds.includes(entry.journalEntryId))
      problem = { problem: 'record_names_another_entry', recordJournalEntryIds: record.journalEntryIds };
    if (problem) {
      mismatches.add({ ...base, ...problem });
      wrong.add(entry.journalEntryId);
    }
  }
  return wrong;
}

export async function recordsByIds(db: Db, source: LocalRecordSource, ids: readonly string[]): Promise<Map<string, CheckedRecord>> {
  const found = await inBatches([...new Set(ids)], 1000, (batch) => source.byIds(db, batch));
  return new Map(found.map((record) => [record.id, record]));
}

/** What one source's check read and found, for the marks of each scope. */
interface CheckFindings {
  fresh: Awaited<ReturnType<typeof recordsAfter>>;
  naming: Awaited<ReturnType<OwnRecordsCheckOptions['journal']['namingEntries']>>;
  records: Map<string, CheckedRecord>;
  wrongRecords: Set<string>;
  wrongEntries: Set<string>;
  lookbackStart: number;
}

/** A scope's marks after a check: as far as it read, held below anything found wrong, with the records still open. */
function nextMarks(scope: RecordScope, previous: Marks, found: CheckFindings): Marks & RecordScope {
  const { fresh, naming, records, wrongRecords, wrongEntries, lookbackStart } = found;
  const inScope = (record: { tenantId: string; environment: string }): boolean => scopeKey(record) === scopeKey(scope);
  const freshRows = fresh.rows.filter((row) => row.tenant_id === scope.tenantId && row.environment === scope.environment);
  const entries = naming.data.filter(inScope);
  // As far as the listing looked, past entries of other types; at least its last find.
  const scopeScan = naming.scanned.find(inScope);
  const scanned = scopeScan?.throughSeq ?? previous.entries.verifiedSeq;
  const heldRecords = freshRows.filter((row) => wrongRecords.has(row.id)).map((row) => row.seq);
  const heldEntries = entries.filter((entry) => wrongEntries.has(entry.journalEntryId)).map((entry) => entry.seq);
  const open = [...records.values()]
    .filter((record) => inScope(record) && (wrongRecords.has(record.id) || (record.open && record.createdAt.getTime() >= lookbackStart)))
    .slice(0, OPEN_MAX)
    .map((record) => ({ id: record.id, createdAt: record.createdAt.toISOString() }));
  return {
    ...scope,
    records: advanceHighWater(previous.records, {
      topSeq: maxSeq(
        freshRows.map((row) => row.seq),
        previous.records.verifiedSeq,
      ),
      snapshot: fresh.snapshot,
      holdBelow: heldRecords.length > 0 ? minSeq(heldRecords) : null,
    }),
    entries: advanceHighWater(previous.entries, {
      topSeq: maxSeq(
        entries.map((entry) => entry.seq),
        scanned,
      ),
      snapshot: scopeScan?.snapshot ?? naming.snapshot,
      holdBelow: heldEntries.length > 0 ? minSeq(heldEntries) : null,
    }),
    open,
  };
}

/**
 * Check 3 for one source over these scopes, from its marks on: the records after the record mark
 * and those still open within the lookback (each compared with the entries it names, asked of
 * the ledger by id), and the entries naming this type after the entry mark (each pointed back
 * at its record, whose posting it must be). The marks then move as the ledger's checkpoints do
 * (advanceHighWater), never past something found wrong.
 */
async function checkSource(
  options: OwnRecordsCheckOptions,
  source: LocalRecordSource,
  scopes: readonly RecordScope[],
  mismatches: MismatchList,
): Promise<RecordsCoverage> {
  const { db, journal } = options;
  const limit = options.limitPerScope ?? CHECK3_LIMIT_PER_SCOPE;
  const now = (options.now ?? (() => new Date()))();
  const marks = await readMarks(db, source.referenceType, scopes);
  const markOf = (scope: RecordScope): Marks => marks.get(scopeKey(scope)) ?? { records: NO_HIGH_WATER, entries: NO_HIGH_WATER, open: [] };

  // The ledger lists the entries while this side reads and compares its records.
  const namingAsked = journal.namingEntries(
    source.referenceType,
    scopes.map((scope) => ({ ...scope, afterSeq: markOf(scope).entries.verifiedSeq })),
    limit,
  );
  namingAsked.catch(() => undefined);
  const fresh = await recordsAfter(
    db,
    source.table,
    scopes.map((scope) => ({ ...scope, afterSeq: markOf(scope).records.verifiedSeq })),
    limit,
  );
  const openIds = scopes.flatMap((scope) => markOf(scope).open.map((each) => each.id));
  const records = await recordsByIds(db, source, [...fresh.rows.map((row) => row.id), ...openIds]);
  const wrongRecords = await compareRecords(
    journal,
    source.referenceType,
    [...records.values()].filter((record) => record.postings.length > 0),
    mismatches,
  );

  const naming = await namingAsked;
  const named = await recordsByIds(
    db,
    source,
    naming.data.map((entry) => entry.reference.id).filter((id) => !records.has(id)),
  );
  for (const [id, record] of records) named.set(id, record);
  const wrongEntries = entriesPointAtRecords(source.referenceType, naming.data, named, mismatches);
  // An older record's new step: its posting is compared with the entry now, as a new record's is.
  const later = naming.data.flatMap((entry) => {
    const record = named.get(entry.reference.id);
    return record && !records.has(record.id) && !wrongEntries.has(entry.journalEntryId)
      ? [{ ...record, postings: record.postings.filter((posting) => posting.journalEntryId === entry.journalEntryId) }]
      : [];
  });
  for (const id of await compareRecords(journal, source.referenceType, later, mismatches)) wrongRecords.add(id);
  for (const entry of naming.data) if (wrongRecords.has(entry.reference.id)) wrongEntries.add(entry.journalEntryId);

  const found: CheckFindings = { fresh, naming, records, wrongRecords, wrongEntries, lookbackStart: now.getTime() - options.lookbackMs };
  const next = new Map<string, Marks & RecordScope>();
  for (const scope of scopes) next.set(scopeKey(scope), nextMarks(scope, markOf(scope), found));
  await writeMarks(db, source.referenceType, next);
  return {
    referenceType: source.referenceType,
    afterRecordSeq: minSeq(scopes.map((scope) => markOf(scope).records.verifiedSeq)),
    records: records.size,
    afterEntrySeq: minSeq(scopes.map((scope) => markOf(scope).entries.verifiedSeq)),
    entries: naming.data.length,
  };
}

/**
 * Check 3 over a service's own records for these scopes, from its marks on (a full run's is
 * checkAllRecords): each source at once (their marks are their own), mismatches listed in the
 * sources' order.
 */
export async function checkOwnRecords(
  options: OwnRecordsCheckOptions,
  scopes: readonly RecordScope[],
  mismatches: MismatchList,
): Promise<RecordsCoverage[]> {
  const checked = await Promise.all(
    options.sources.map(async (source) => {
      const found = new MismatchList(mismatches.limit);
      return { found, coverage: await checkSource(options, source, scopes, found) };
    }),
  );
  for (const { found } of checked) for (const mismatch of found.items) mismatches.add(mismatch);
  return checked.map(({ coverage }) => coverage);
}
