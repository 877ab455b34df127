import { JOURNAL_DIGEST_MAX, type RecordDigests, type RecordScope } from '@wallet/contracts';
import { type BackgroundPace, type Db, type SnapshotBounds, snapshotBounds, UNPACED } from '@wallet/kit';
import {
  type CheckedRecord,
  compareRecords,
  type DigestedRecords,
  entriesPointAtRecords,
  type LocalRecordSource,
  type Marks,
  type MismatchList,
  OPEN_MAX,
  type OwnRecordsCheckOptions,
  type RecordsCoverage,
  recordsAfter,
  recordsByIds,
  writeMarks,
} from './business-records';
import { addDigests, type Digest, DigestSum, EMPTY_DIGEST, postingsDigest, sameDigest } from './entry-digest';

/**
 * Check 3 from zero, as a background full run does it, in time that follows the records read
 * once rather than the entries looked up one by one:
 *
 * 1. Every record is read in seq order while the ledger's full pass reads the journal. A record
 *    that is done (not open, every step naming its entry) adds its postings to its scope's
 *    digest; the others are kept for later.
 * 2. The ledger's pass gives, per scope and record type, the digest of the entries naming
 *    records through its top seq, and the entries posted since are digested through the newest
 *    final seq S. The records kept for later and those created since the pass went by are read
 *    again: their entries are digested by id, both whole (their content must equal the records')
 *    and as far as S.
 * 3. Per scope and type, the records' digest must equal the ledger's. Every entry a done record
 *    names was committed before the pass read the record, so before S was chosen; what differs
 *    is a record or an entry wrong, or a record not yet done (step 2 is read again a few times
 *    while records in flight finish). Only then are that scope's records compared one by one,
 *    and its entries walked, to say what is wrong.
 */

/** The ledger's digests from its full pass, once it finished; null when it has none (a run across its shards). */
export type PassDigests = () => Promise<RecordDigests | null>;

export interface FullRecordsCheck {
  /** The run's scope: one tenant's environment, or every scope (null). */
  scope: RecordScope | null;
  /** Null when there are none (a caller that does not have them): every scope is compared one by one. */
  passDigests: PassDigests | null;
  onProgress?: (records: number) => Promise<void>;
  /** Smaller pages and rests between them while the service has traffic; full speed when absent. */
  pace?: BackgroundPace;
  /** Told how each scope's records of a type were compared: as one digest, or one by one (something differed, or was still in flight). */
  onCompared?: (referenceType: string, how: 'digest' | 'one_by_one') => void;
}

/** Step 2 is read again this often while records in flight finish, this long apart. */
const SETTLE_TRIES = 20;
const SETTLE_PAUSE_MS = 250;

interface ScopeSum {
  scope: RecordScope;
  source: LocalRecordSource;
  sum: Digest;
  /** Records not done when read: read again in step 2. */
  later: string[];
  /** The last seq the pass read; newer records are read in step 2. */
  lastSeq: string;
  records: number;
}

const keyOf = (scope: RecordScope, referenceType: string): string => `${scope.tenantId}|${scope.environment}|${referenceType}`;
const isDone = (record: CheckedRecord): boolean => !record.open && record.postings.every((posting) => posting.journalEntryId !== null);

/** A page of a scope's records after a seq, in seq order (`rows`: what was read, for the next page's seq). */
async function readPage(
  db: Db,
  source: LocalRecordSource,
  scope: RecordScope,
  afterSeq: string,
  limit = JOURNAL_DIGEST_MAX,
): Promise<{ rows: Array<{ seq: string }>; records: CheckedRecord[] }> {
  if (source.after) {
    const records = await source.after(db, scope, afterSeq, limit);
    return { rows: records, records };
  }
  const page = await recordsAfter(db, source.table, [{ ...scope, afterSeq }], limit);
  return {
    rows: page.rows,
    records: [
      ...(
        await recordsByIds(
          db,
          source,
          page.rows.map((row) => row.id),
        )
      ).values(),
    ],
  };
}

/** A step of records digested where they are stored: no answer crosses HTTP, so it is bounded by the pace's step time only. */
const DIGESTED_PAGE_MAX = 50_000;

/** Records in seq order digested here: the digest of the done ones' postings, and the others' ids (what a source's digestAfter must answer for them). */
export function digestOfRecords(records: readonly CheckedRecord[]): DigestedRecords {
  const sum = new DigestSum();
  const notDone: string[] = [];
  for (const record of records) {
    if (!isDone(record)) notDone.push(record.id);
    // isDone: every posting names its entry.
    else for (const posting of record.postings) sum.addPosting(record, posting as typeof posting & { journalEntryId: string });
  }
  return { records: records.length, lastSeq: records[records.length - 1]?.seq ?? null, digest: sum.value(), notDone };
}

/** A page of a scope's records after a seq, digested: by the source where it keeps its records, else here from what `after` reads. */
async function digestPage(
  db: Db,
  source: LocalRecordSource,
  scope: RecordScope,
  afterSeq: string,
  limit: number,
): Promise<DigestedRecords> {
  if (source.digestAfter) return source.digestAfter(db, scope, afterSeq, limit);
  const page = await readPage(db, source, scope, afterSeq, limit);
  return { ...digestOfRecords(page.records), records: page.rows.length, lastSeq: page.rows[page.rows.length - 1]?.seq ?? null };
}

/** Step 1 for one source in one scope: the next page is read while this one is summed. */
async function sumRecords(
  db: Db,
  source: LocalRecordSource,
  scope: RecordScope,
  pace: BackgroundPace,
  onRead: (records: number) => Promise<void>,
): Promise<ScopeSum> {
  let sum = EMPTY_DIGEST;
  const later: string[] = [];
  let lastSeq = '0';
  let records = 0;
  const steps = pace.steps(source.digestAfter ? DIGESTED_PAGE_MAX : JOURNAL_DIGEST_MAX);
  let asked = steps.size();
  let next = digestPage(db, source, scope, lastSeq, asked);
  for (;;) {
    const started = performance.now();
    const page = await next;
    const more = page.lastSeq !== null && page.records === asked;
    if (page.lastSeq !== null) lastSeq = page.lastSeq;
    asked = steps.size();
    if (more) next = digestPage(db, source, scope, lastSeq, asked);
    sum = addDigests(sum, page.digest);
    later.push(...page.notDone);
    records += page.records;
    await onRead(page.records);
    if (!more) return { scope, source, sum, later, lastSeq, records };
    await steps.after(page.records, performance.now() - started);
  }
}

/** Every record of the source in the scope after a seq, whatever their number; the highest seq read and the snapshot it was read in. */
async function idsAfter(
  db: Db,
  source: LocalRecordSource,
  scope: RecordScope,
  afterSeq: string,
): Promise<{ ids: string[]; topSeq: string; snapshot: SnapshotBounds }> {
  const ids: string[] = [];
  for (let from = afterSeq; ;) {
    const page = await recordsAfter(db, source.table, [{ ...scope, afterSeq: from }], JOURNAL_DIGEST_MAX);
    ids.push(...page.rows.map((row) => row.id));
    const last = page.rows[page.rows.length - 1];
    if (last) from = last.seq;
    if (!last || page.rows.length < JOURNAL_DIGEST_MAX) return { ids, topSeq: from, snapshot: page.snapshot };
  }
}

/**
 * Step 2 once: the records' digest with those kept for later and those created since, as far as
 * `throughSeq`, and whether any of those is still in flight (open); null when a record is wrong
 * for sure (done, yet a step names no entry, or its entries differ from it), which only a
 * comparison one by one can say.
 */
async function digestWithLater(
  options: OwnRecordsCheckOptions,
  summed: ScopeSum,
  throughSeq: string,
): Promise<(Settled & { total: Digest; inFlight: boolean }) | null> {
  const { db, journal } = options;
  const { source, scope } = summed;
  const newer = await idsAfter(db, source, scope, summed.lastSeq);
  const records = [...(await recordsByIds(db, source, [...summed.later, ...newer.ids])).values()];
  if (records.some((record) => !record.open && !isDone(record))) return null;
  const postings = records.flatMap((record) =>
    record.postings.flatMap((posting) =>
      posting.journalEntryId === null ? [] : [{ scope: record, posting: { ...posting, journalEntryId: posting.journalEntryId } }],
    ),
  );
  let total = summed.sum;
  for (let start = 0; start < postings.length; start += JOURNAL_DIGEST_MAX) {
    const chunk = postings.slice(start, start + JOURNAL_DIGEST_MAX);
    const answer = await journal.digest({
      ids: chunk.map(({ posting }) => posting.journalEntryId),
      named: { referenceType: source.referenceType, ...scope, upToSeq: throughSeq },
    });
    if (!sameDigest(answer.found, postingsDigest(chunk))) return null;
    total = addDigests(total, answer.named);
  }
  return {
    total,
    inFlight: records.some((record) => record.open),
    topSeq: newer.topSeq,
    snapshot: newer.snapshot,
    open: records.filter((record) => record.open),
  };
}

/** How far a scope's records stood when they agreed with the ledger: its marks can move there. */
interface Settled {
  topSeq: string;
  snapshot: SnapshotBounds;
  open: CheckedRecord[];
}

/** Steps 2 and 3 for one source in one scope: where its records stood once they were exactly the ledger's entries naming them; null when they are not. */
async function agreesWithLedger(
  options: OwnRecordsCheckOptions,
  summed: ScopeSum,
  ledger: Digest,
  throughSeq: string,
): Promise<Settled | null> {
  for (let attempt = 1; ; attempt += 1) {
    const records = await digestWithLater(options, summed, throughSeq);
    if (records === null) return null;
    if (sameDigest(records.total, ledger)) return records;
    // Only a record still in flight can make the two agree later.
    if (!records.inFlight || attempt >= SETTLE_TRIES) return null;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_PAUSE_MS));
  }
}

/** One source in one scope compared record by record (compareRecords), then its entries walked back to their records. */
async function checkInDetail(
  options: OwnRecordsCheckOptions,
  source: LocalRecordSource,
  scope: RecordScope,
  mismatches: MismatchList,
): Promise<{ records: number; entries: number }> {
  const { db, journal } = options;
  let records = 0;
  for (let afterSeq = '0'; ;) {
    const page = await readPage(db, source, scope, afterSeq);
    await compareRecords(journal, source.referenceType, page.records, mismatches);
    records += page.rows.length;
    const last = page.rows[page.rows.length - 1];
    if (!last || page.rows.length < JOURNAL_DIGEST_MAX) break;
    afterSeq = last.seq;
  }
  return { records, entries: await entriesAgainstRecords(options, source, scope, mismatches) };
}

/** Every entry naming this type in the scope pointed back at its record, page by page: what says which entries have no record, or not this one. */
async function entriesAgainstRecords(
  options: OwnRecordsCheckOptions,
  source: LocalRecordSource,
  scope: RecordScope,
  mismatches: MismatchList,
): Promise<number> {
  const batch = 500;
  let entries = 0;
  for (let afterSeq = '0'; ;) {
    const page = await options.journal.namingEntries(source.referenceType, [{ ...scope, afterSeq }], batch);
    const named = await recordsByIds(
      options.db,
      source,
      page.data.map((entry) => entry.reference.id),
    );
    entriesPointAtRecords(source.referenceType, page.data, named, mismatches);
    entries += page.data.length;
    const last = page.data[page.data.length - 1];
    if (!last || page.data.length < batch) return entries;
    afterSeq = last.seq;
  }
}

/** The ledger's digests through the newest final seq: its pass's, and those of the entries posted since. */
async function ledgerTotals(
  options: OwnRecordsCheckOptions,
  check: FullRecordsCheck,
  passDigests: PassDigests,
): Promise<{ throughSeq: string; totals: Map<string, Digest> } | null> {
  const pass = await passDigests();
  if (!pass) return null;
  const since = await options.journal.digestsAfter(pass.throughSeq, check.scope);
  const totals = new Map<string, Digest>();
  for (const row of [...pass.digests, ...since.digests]) {
    const key = keyOf(row, row.referenceType);
    totals.set(key, addDigests(totals.get(key) ?? EMPTY_DIGEST, row));
  }
  return { throughSeq: since.throughSeq, totals };
}

/** Check 3 of a full run over a service's own records in these scopes (see the top of this file). */
export async function checkAllRecords(
  options: OwnRecordsCheckOptions,
  scopes: readonly RecordScope[],
  check: FullRecordsCheck,
  mismatches: MismatchList,
): Promise<RecordsCoverage[]> {
  let read = 0;
  const onRead = async (records: number): Promise<void> => {
    read += records;
    await check.onProgress?.(read);
  };
  const sums: ScopeSum[] = [];
  for (const source of options.sources)
    for (const scope of scopes) sums.push(await sumRecords(options.db, source, scope, check.pace ?? UNPACED, onRead));

  const coverage = new Map(
    options.sources.map((source) => [
      source.referenceType,
      { referenceType: source.referenceType, afterRecordSeq: '0', records: 0, afterEntrySeq: '0', entries: 0 },
    ]),
  );
  const covered = (source: LocalRecordSource, counts: { records: number; entries: number }): void => {
    const each = coverage.get(source.referenceType);
    if (!each) return;
    each.records += counts.records;
    each.entries += counts.entries;
  };
  const ledger = check.passDigests ? await ledgerTotals(options, check, check.passDigests) : null;
  for (const summed of sums) {
    const key = keyOf(summed.scope, summed.source.referenceType);
    const expected = ledger?.totals.get(key) ?? EMPTY_DIGEST;
    ledger?.totals.delete(key);
    const settled = ledger ? await agreesWithLedger(options, summed, expected, ledger.throughSeq) : null;
    if (ledger && settled) {
      check.onCompared?.(summed.source.referenceType, 'digest');
      covered(summed.source, { records: summed.records, entries: expected.entries });
      await moveMarks(options, summed, settled, ledger.throughSeq);
    } else {
      check.onCompared?.(summed.source.referenceType, 'one_by_one');
      covered(summed.source, await checkInDetail(options, summed.source, summed.scope, mismatches));
    }
  }
  // Entries naming records in a scope with none of this service's records.
  for (const source of options.sources) {
    for (const key of ledger?.totals.keys() ?? []) {
      const [tenantId, environment, referenceType] = key.split('|') as [string, RecordScope['environment'], string];
      if (referenceType !== source.referenceType) continue;
      check.onCompared?.(referenceType, 'one_by_one');
      covered(source, await checkInDetail(options, source, { tenantId, environment }, mismatches));
    }
  }
  return [...coverage.values()];
}

/** How long a run waits for the record writes in flight when it read its last records, before it leaves the marks as they are. */
const FINAL_WAIT_MS = 10_000;

/**
 * A scope's check 3 marks after its records agreed with the ledger: records through the highest
 * seq read (once every write in flight then has ended, so none can land below it), entries
 * through the ledger's final seq, the open records within the lookback to re-read. A check asked
 * after a full run (an import, an upgrade) then starts where the run ended rather than at zero.
 */
async function moveMarks(options: OwnRecordsCheckOptions, summed: ScopeSum, settled: Settled, throughSeq: string): Promise<void> {
  const deadline = Date.now() + FINAL_WAIT_MS;
  while (BigInt((await snapshotBounds(options.db)).xmin) < BigInt(settled.snapshot.xmax)) {
    if (Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const lookbackStart = (options.now ?? (() => new Date()))().getTime() - options.lookbackMs;
  const open = settled.open
    .filter((record) => record.createdAt.getTime() >= lookbackStart)
    .slice(0, OPEN_MAX)
    .map((record) => ({ id: record.id, createdAt: record.createdAt.toISOString() }));
  const marks: Marks & RecordScope = {
    ...summed.scope,
    records: { verifiedSeq: settled.topSeq, seenSeq: settled.topSeq, seenXmax: settled.snapshot.xmax },
    entries: { verifiedSeq: throughSeq, seenSeq: throughSeq, seenXmax: '0' },
    open,
  };
  await writeMarks(options.db, summed.source.referenceType, new Map([[`${summed.scope.tenantId}|${summed.scope.environment}`, marks]]));
}
