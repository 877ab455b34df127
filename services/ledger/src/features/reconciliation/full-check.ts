import BigNumber from 'bignumber.js';
import type { RecordDigest, RecordDigests, ReconciliationCoverage } from '@wallet/contracts';
import type { BackgroundPace, Db } from '@wallet/kit';
import { entryTermSql, finalTop, lineTermSql, RecordDigestTotals } from '../journal/entry-digests';
import { entriesOfScopeBetweenSql, scopeOrderSql, type TenantScope } from '../journal/journal-scope';
import {
  type AccountCheckpoint,
  advanceAccountCheckpoints,
  advanceScopeCheckpoints,
  type CurrencyTotals,
  resetScopeTotals,
  type ScopeAdvance,
  type ScopeCheckpoint,
  scopeCheckpoints,
} from './checkpoint-store';
import { type LedgerChecks, MISMATCHES_MAX, type Mismatch } from './ledger-checks';

/** What a full run has done so far: entries and their lines checked, then accounts compared; `linesEstimate` is the journal's size when known. */
export interface FullRunProgress {
  phase: 'accounts' | 'entries' | 'done';
  accounts: number;
  entries: number;
  lines: number;
  linesEstimate: number | null;
}

export interface FullCheckOptions {
  /** Entries per batch are ten times this, and so are accounts per batch of the comparison. */
  batchSize: number;
  /** Smaller batches and rests between them while postings arrive, so they keep their latency. */
  pace: BackgroundPace;
  onProgress: (progress: FullRunProgress) => Promise<void>;
}
const scopeKey = (scope: { tenantId: string; environment: string }): string => `${scope.tenantId}|${scope.environment}`;

/** An account's lines as the entries pass summed them: debits and credits through the run's top seq. */
interface LineSums {
  debits: BigNumber;
  credits: BigNumber;
  lastSeq: string;
}

interface AccountRow {
  accountId: string;
  accountNum: string;
  tenantId: string;
  environment: string;
  accountName: string;
  currencyCode: string;
  normalSide: 'DR' | 'CR';
  balance: string;
  /** What lines after the run's top seq moved it since, in its normal direction. */
  since: string;
}

const exactSumSql = `COALESCE(SUM(CASE WHEN l.direction = a.normal_side THEN l.amount ELSE -l.amount END), 0)`;

/** One account summed from its first line in one statement (its balance and its lines in one snapshot): the recheck of an account that looked wrong. */
async function exactSum(db: Db, accountId: string): Promise<{ balance: string; sum: string; lastSeq: string | null }> {
  const result = await db.raw(
    `SELECT a.balance::text AS balance, n.sum::text AS sum, n.last_seq::text AS "lastSeq"
       FROM accounts a CROSS JOIN LATERAL (SELECT ${exactSumSql} AS sum, max(l.entry_seq) AS last_seq FROM journal_lines l WHERE l.account_num = a.num) n
      WHERE a.id = ?`,
    [accountId],
  );
  return result.rows[0] as { balance: string; sum: string; lastSeq: string | null };
}

/**
 * Check 1 from the sums the entries pass made: in batches of accounts, each balance less what
 * lines after the run's top seq moved it (an index range scan, usually empty) must equal them. A
 * line still committing below the top seq when the pass went by makes an account look wrong: each
 * one that does is summed again exactly before it is reported. The sums become the checkpoints.
 */
async function accountsPass(
  db: Db,
  scope: TenantScope | null,
  throughSeq: string,
  sums: Map<string, LineSums>,
  options: FullCheckOptions,
  progress: FullRunProgress,
  found: Mismatch[],
): Promise<void> {
  let after = '';
  const steps = options.pace.steps(options.batchSize * 10);
  for (;;) {
    const started = performance.now();
    const result = await db.raw(
      `SELECT a.id AS "accountId", a.num::text AS "accountNum", a.tenant_id AS "tenantId", a.environment, a.name AS "accountName", a.currency_code AS "currencyCode",
              a.normal_side AS "normalSide", a.balance::text AS balance, n.sum::text AS since
         FROM accounts a
         CROSS JOIN LATERAL (SELECT ${exactSumSql} AS sum FROM journal_lines l WHERE l.account_num = a.num AND l.entry_seq > ?) n
        WHERE a.id > ? ${scope ? 'AND a.tenant_id = ? AND a.environment = ?' : ''}
        ORDER BY a.id LIMIT ?`,
      [throughSeq, after, ...(scope ? [scope.tenantId, scope.environment] : []), steps.size()],
    );
    const rows = result.rows as AccountRow[];
    if (rows.length === 0) return;
    const checkpoints: AccountCheckpoint[] = [];
    for (const row of rows) {
      const summed = sums.get(row.accountNum);
      const sum = summed
        ? row.normalSide === 'DR'
          ? summed.debits.minus(summed.credits)
          : summed.credits.minus(summed.debits)
        : new BigNumber(0);
      sums.delete(row.accountNum);
      if (sum.eq(new BigNumber(row.balance).minus(row.since))) {
        if (summed) checkpoints.push({ accountId: row.accountId, verifiedSeq: summed.lastSeq, verifiedSum: sum.toFixed() });
        continue;
      }
      const exact = await exactSum(db, row.accountId);
      if (exact.lastSeq !== null) checkpoints.push({ accountId: row.accountId, verifiedSeq: exact.lastSeq, verifiedSum: exact.sum });
      if (!new BigNumber(exact.sum).eq(exact.balance) && found.length < MISMATCHES_MAX) {
        found.push({
          accountId: row.accountId,
          tenantId: row.tenantId,
          environment: row.environment,
          accountName: row.accountName,
          currencyCode: row.currencyCode,
          materializedBalance: exact.balance,
          sumOfLines: exact.sum,
        });
      }
    }
    await db.transaction((tx) => advanceAccountCheckpoints(tx, checkpoints, { reset: true }));
    progress.accounts += rows.length;
    after = rows[rows.length - 1]?.accountId ?? after;
    await options.onProgress(progress);
    await steps.after(rows.length, performance.now() - started);
  }
}

interface EntryBatch {
  lastSeq: string;
  entries: number;
  lines: number;
  unbalanced: Mismatch[];
  /** Platform runs only: lines in the batch's range of seqs whose entry is missing. */
  withoutEntry: Mismatch[];
  sums: Array<{
    tenantId: string;
    environment: string;
    currencyCode: string;
    debits: string;
    credits: string;
    checkpointDebits: string;
    checkpointCredits: string;
  }>;
  /** Per account (by number) the batch moved: debits, credits, its last seq (arrays, one position per account). */
  accountNums: string[];
  accountDebits: string[];
  accountCredits: string[];
  accountLastSeqs: string[];
  /** Per scope and record type, the digest of the batch's entries (check 3 compares records with them). */
  digests: RecordDigest[];
}

/** The entries with a seq in (afterSeq, throughSeq]: the whole journal's by primary key, or one scope's on its index. */
function entriesBetweenSql(scope: TenantScope | null, afterSeq: string, throughSeq: string): { sql: string; bindings: string[] } {
  return scope
    ? entriesOfScopeBetweenSql('journal_entries', scope, afterSeq, throughSeq)
    : { sql: 'seq > ? AND seq <= ?', bindings: [afterSeq, throughSeq] };
}

/**
 * A dense batch's entries by primary-key range, its scope as a filter: the same entries as along
 * the scope's index (from the batch's first to its last), but a statement the planner can size.
 * Along the scope's index it expects one entry, and so joins the range's lines to them one entry
 * at a time: the lookup per entry the range read is there to avoid (10,000 lines/s at 10 million).
 */
function entriesOfDenseRangeSql(scope: TenantScope, extent: BatchExtent): { sql: string; bindings: string[] } {
  return {
    sql: 'seq >= ? AND seq <= ? AND tenant_id = ? AND environment = ?',
    bindings: [extent.firstSeq, extent.lastSeq, scope.tenantId, scope.environment],
  };
}

/** The next batch's entries: their count and first and last seqs, from a walk of `limit` entries, so the batch itself reads a closed range. */
interface BatchExtent {
  entries: number;
  firstSeq: string;
  lastSeq: string;
}

async function batchExtent(
  db: Db,
  scope: TenantScope | null,
  page: { afterSeq: string; throughSeq: string; limit: number },
): Promise<BatchExtent | null> {
  const range = entriesBetweenSql(scope, page.afterSeq, page.throughSeq);
  const order = scope ? scopeOrderSql('journal_entries') : 'seq';
  const result = await db.raw(
    `SELECT count(*)::int AS entries, min(seq)::text AS "firstSeq", max(seq)::text AS "lastSeq" FROM (SELECT seq FROM journal_entries WHERE ${range.sql} ORDER BY ${order} LIMIT ?) batch`,
    [...range.bindings, page.limit],
  );
  const extent = result.rows[0] as BatchExtent;
  return extent.entries > 0 ? extent : null;
}

/**
 * A share of the journal's entries in a range of seqs from which a tenant's batch reads the whole
 * range's lines and keeps its own, as a platform batch does: one pass in primary-key order beats a
 * lookup per entry once the tenant has more than a few entries in every ten of the range.
 */
const DENSE_SCOPE_SHARE = 0.2;

/** How a batch reads its lines: every line of its range (a platform batch, or a tenant dense in it), or its entries' lines one entry at a time. */
type LineRead = 'range' | 'range of the scope' | 'by entry';

function lineReadOf(scope: TenantScope | null, extent: BatchExtent): LineRead {
  if (!scope) return 'range';
  const span = Number(BigInt(extent.lastSeq) - BigInt(extent.firstSeq)) + 1;
  return extent.entries / span >= DENSE_SCOPE_SHARE ? 'range of the scope' : 'by entry';
}

/**
 * The seqs whose lines a range read takes: a platform batch from just after the last batch (a line
 * there whose entry is missing is one of its findings), a tenant's from its first entry.
 */
function linesRangeBindings(read: LineRead, afterSeq: string, extent: BatchExtent): string[] {
  if (read === 'by entry') return [];
  return [read === 'range' ? afterSeq : (BigInt(extent.firstSeq) - 1n).toString(), extent.lastSeq];
}

/**
 * A platform batch reads every line in its range of seqs in primary-key order, merged with the
 * range's entries (a line with no entry shows up here). A tenant's batch reads the same range
 * keeping only its entries' lines where it has most of the range's entries, else its entries'
 * lines by primary key, entry by entry (a sparse share of the range).
 */
function linesOfBatchSql(read: LineRead): string {
  const accountAndCheckpoint =
    'LEFT JOIN accounts a ON a.num = l.account_num LEFT JOIN cp ON cp.tenant_id = a.tenant_id AND cp.environment = a.environment';
  if (read === 'by entry')
    return `FROM e CROSS JOIN LATERAL (SELECT * FROM journal_lines j WHERE j.entry_seq = e.seq OFFSET 0) l ${accountAndCheckpoint}`;
  return `FROM journal_lines l ${read === 'range' ? 'LEFT ' : ''}JOIN e ON e.seq = l.entry_seq ${accountAndCheckpoint} WHERE l.entry_seq > ? AND l.entry_seq <= ?`;
}

/**
 * Check 2 from zero, in seq order through `throughSeq` (the highest seq when the run began), one
 * batch of entries per statement over a closed range of seqs: unbalanced entries, the totals per
 * scope and currency (also up to each scope's checkpoint, to put the checkpoint's totals right),
 * and each account's sums for check 1. Its aggregates get the memory to stay off disk.
 */
async function entriesBatch(
  db: Db,
  scope: TenantScope | null,
  afterSeq: string,
  extent: BatchExtent,
  checkpointSeqs: string,
): Promise<EntryBatch> {
  const lastSeq = extent.lastSeq;
  const read = lineReadOf(scope, extent);
  const range =
    read === 'range of the scope' && scope ? entriesOfDenseRangeSql(scope, extent) : entriesBetweenSql(scope, afterSeq, lastSeq);
  return db.transaction(async (tx) => {
    await tx.raw("SET LOCAL work_mem = '64MB'");
    // Compiling this statement (JIT) took about 160 ms of a batch's second: a sixth of the run at 10 million lines.
    await tx.raw('SET LOCAL jit = off');
    const result = await tx.raw(
      `WITH e AS MATERIALIZED (
         SELECT seq, id, tenant_id, environment, kind, reference_type, reference_id FROM journal_entries WHERE ${range.sql}
       ),
       cp AS (SELECT * FROM jsonb_to_recordset(?::jsonb) AS cp(tenant_id text, environment text, verified_seq bigint)),
       -- Lines carry only what the checks need: a line's currency and scope are its account's (a line whose account is missing is
       -- left to linesWithoutAccount), and so is the scope checkpoint its amount counts towards.
       l AS MATERIALIZED (
         SELECT l.entry_seq, l.line_no, e.seq, l.account_num, a.num IS NOT NULL AS has_account, l.direction, l.amount, a.currency_code, cp.verified_seq AS cp_seq,
                e.tenant_id AS entry_tenant_id, e.environment AS entry_environment, e.reference_type AS entry_reference_type,
                CASE WHEN e.seq IS NOT NULL AND a.num IS NOT NULL THEN ${lineTermSql('e.id', 'l', 'a')} END AS term
           ${linesOfBatchSql(read)}
       ),
       -- One sum per account, side and place against its scope's checkpoint (a few rows per account), then those pivoted: fewer sums of every line.
       per_side AS MATERIALIZED (
         SELECT account_num, direction, seq <= cp_seq AS at_checkpoint, SUM(amount) AS amount, max(seq) AS last_seq, count(*) AS lines
           FROM l WHERE seq IS NOT NULL GROUP BY 1, 2, 3
       ),
       per_account AS MATERIALIZED (
         SELECT account_num, COALESCE(SUM(amount) FILTER (WHERE direction = 'DR'), 0) AS debits, COALESCE(SUM(amount) FILTER (WHERE direction = 'CR'), 0) AS credits,
                COALESCE(SUM(amount) FILTER (WHERE direction = 'DR' AND at_checkpoint), 0) AS cp_debits, COALESCE(SUM(amount) FILTER (WHERE direction = 'CR' AND at_checkpoint), 0) AS cp_credits,
                max(last_seq) AS last_seq
           FROM per_side GROUP BY account_num
       ),
       -- One signed sum per entry over lines in seq order (a streaming group, no hash table of every entry); only those off are detailed.
       off AS MATERIALIZED (
         SELECT seq FROM (SELECT seq, currency_code, direction, amount FROM l WHERE has_account AND seq IS NOT NULL ORDER BY seq) ordered
          GROUP BY seq, currency_code HAVING SUM(CASE WHEN direction = 'DR' THEN amount ELSE -amount END) <> 0
          ORDER BY seq LIMIT ${MISMATCHES_MAX}
       ),
       digests AS (
         SELECT tenant_id AS "tenantId", environment, reference_type AS "referenceType", sum(entries)::int AS entries, sum(digest)::text AS digest FROM (
           SELECT tenant_id, environment, reference_type, count(*) AS entries, sum(${entryTermSql('e')}) AS digest FROM e GROUP BY 1, 2, 3
           UNION ALL
           SELECT entry_tenant_id, entry_environment, entry_reference_type, 0, sum(term) FROM l WHERE term IS NOT NULL GROUP BY 1, 2, 3
         ) d GROUP BY 1, 2, 3
       )
       SELECT
         (SELECT count(*)::int FROM e) AS entries,
         (SELECT COALESCE(json_agg(d), '[]') FROM digests d) AS digests,
         (SELECT COALESCE(sum(lines), 0)::int FROM per_side) AS lines,
         (SELECT COALESCE(json_agg(x ORDER BY x.seq), '[]') FROM (
            SELECT j.seq, j.id AS "journalEntryId", j.tenant_id AS "tenantId", j.environment, l.currency_code AS "currencyCode",
                   (SUM(l.amount) FILTER (WHERE l.direction = 'DR'))::text AS debits, (SUM(l.amount) FILTER (WHERE l.direction = 'CR'))::text AS credits
              FROM l JOIN journal_entries j ON j.seq = l.seq
             WHERE l.seq IN (SELECT seq FROM off) AND l.has_account
             GROUP BY j.seq, j.id, j.tenant_id, j.environment, l.currency_code
            HAVING COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'DR'), 0) <> COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'CR'), 0)) x) AS unbalanced,
         (SELECT COALESCE(json_agg(x), '[]') FROM (
            SELECT entry_seq::text AS "entrySeq", line_no AS "lineNo", account_num::text AS "accountNum", 'line without entry' AS problem
              FROM l WHERE seq IS NULL ORDER BY entry_seq, line_no LIMIT ${MISMATCHES_MAX}) x) AS "withoutEntry",
         (SELECT COALESCE(json_agg(x), '[]') FROM (
            SELECT a.tenant_id AS "tenantId", a.environment, a.currency_code AS "currencyCode",
                   SUM(p.debits)::text AS debits, SUM(p.credits)::text AS credits, SUM(p.cp_debits)::text AS "checkpointDebits", SUM(p.cp_credits)::text AS "checkpointCredits"
              FROM per_account p JOIN accounts a ON a.num = p.account_num
             GROUP BY a.tenant_id, a.environment, a.currency_code) x) AS sums,
         p."accountNums", p."accountDebits", p."accountCredits", p."accountLastSeqs"
         FROM (SELECT COALESCE(array_agg(account_num::text), '{}') AS "accountNums", COALESCE(array_agg(debits::text), '{}') AS "accountDebits",
                      COALESCE(array_agg(credits::text), '{}') AS "accountCredits", COALESCE(array_agg(last_seq::text), '{}') AS "accountLastSeqs"
                 FROM per_account) p`,
      [...range.bindings, checkpointSeqs, ...linesRangeBindings(read, afterSeq, extent)],
    );
    return { ...(result.rows[0] as Omit<EntryBatch, 'lastSeq'>), lastSeq };
  });
}

/** Batches read side by side while the ledger is idle: each is one PostgreSQL backend, so two use both cores of a small machine. */
const IDLE_BATCHES_IN_FLIGHT = 2;

/**
 * The entries pass's batches in seq order through `throughSeq`. While the ledger is idle the next
 * batch is already read beside this one; while it is busy, one at a time with rests between
 * (the pace), so postings keep their latency.
 */
async function* entryBatches(
  db: Db,
  scope: TenantScope | null,
  throughSeq: string,
  checkpointSeqs: string,
  pace: BackgroundPace,
  batchSize: number,
): AsyncGenerator<EntryBatch> {
  const steps = pace.steps(batchSize * 10);
  const inFlight: Array<Promise<{ batch: EntryBatch; ms: number }>> = [];
  let afterSeq = '0';
  let more = true;
  try {
    for (;;) {
      while (more && inFlight.length < (pace.busy ? 1 : IDLE_BATCHES_IN_FLIGHT)) {
        const extent = await batchExtent(db, scope, { afterSeq, throughSeq, limit: steps.size() });
        if (extent === null) more = false;
        else {
          const started = performance.now();
          const read = entriesBatch(db, scope, afterSeq, extent, checkpointSeqs).then((batch) => ({
            batch,
            ms: performance.now() - started,
          }));
          // Awaited in its turn; meanwhile a failure must not count as unhandled.
          read.catch(() => undefined);
          inFlight.push(read);
          afterSeq = extent.lastSeq;
        }
      }
      const next = inFlight.shift();
      if (!next) return;
      const { batch, ms } = await next;
      yield batch;
      await steps.after(batch.entries, ms);
    }
  } finally {
    await Promise.allSettled(inFlight);
  }
}

function add(totals: Map<string, Mismatch & CurrencyTotals>, key: string, fields: Mismatch, debits: string, credits: string): void {
  const before = totals.get(key);
  totals.set(key, {
    ...fields,
    debits: new BigNumber(before?.debits ?? '0').plus(debits).toFixed(),
    credits: new BigNumber(before?.credits ?? '0').plus(credits).toFixed(),
  });
}

async function linesWithoutAccount(db: Db, accountNums: readonly string[]): Promise<Mismatch[]> {
  if (accountNums.length === 0) return [];
  const result = await db.raw(
    `SELECT e.id AS "journalEntryId", l.line_no AS "lineNo", l.account_num::text AS "accountNum", 'line without account' AS problem
       FROM journal_lines l LEFT JOIN journal_entries e ON e.seq = l.entry_seq
      WHERE l.account_num = ANY(?::bigint[]) AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.num = l.account_num) LIMIT ${MISMATCHES_MAX}`,
    [[...accountNums]],
  );
  return result.rows as Mismatch[];
}

/** A scope's totals per currency from the run's sums keyed `tenant|environment|currency`. */
function totalsOf(sums: ReadonlyMap<string, Mismatch & CurrencyTotals>, scope: ScopeCheckpoint): Record<string, CurrencyTotals> {
  const scopeTotals: Record<string, CurrencyTotals> = {};
  for (const [key, sum] of sums)
    if (key.startsWith(`${scopeKey(scope)}|`)) scopeTotals[sum.currencyCode as string] = { debits: sum.debits, credits: sum.credits };
  return scopeTotals;
}

/**
 * The scopes whose checkpoint the run moves to its top seq: those it found nothing wrong in, with
 * a checkpoint below it. Otherwise the first incremental run after a long history written at once
 * (an import, a restore) would read all of it in one statement; with this it reads what came after
 * the run. A finding that names no scope (a line without entry) holds every scope where it was.
 */
function scopesToAdvance(scopes: readonly ScopeCheckpoint[], throughSeq: string, findings: readonly Mismatch[]): ScopeCheckpoint[] {
  if (findings.some((finding) => typeof finding.tenantId !== 'string')) return [];
  const flagged = new Set(findings.map((finding) => scopeKey(finding as { tenantId: string; environment: string })));
  return scopes.filter((each) => !flagged.has(scopeKey(each)) && BigInt(throughSeq) > BigInt(each.verifiedSeq));
}

/** Verified through `throughSeq`, every transaction below it ended (finalTop): nothing left pending above the mark. */
function advanceTo(scope: ScopeCheckpoint, throughSeq: string, totals: Record<string, CurrencyTotals>): ScopeAdvance {
  return {
    next: { tenantId: scope.tenantId, environment: scope.environment, verifiedSeq: throughSeq, totals, seenSeq: throughSeq, seenXmax: '0' },
    previous: { verifiedSeq: scope.verifiedSeq, seenSeq: scope.seenSeq },
  };
}

/**
 * Checks 1 and 2 from zero, in batches with a pause between them: the background re-verification
 * that finds what the checkpoints already passed (a line edited in place, a balance wrong before
 * its account's checkpoint). One pass over the entries in seq order (the journal read in the
 * order it was written) checks them and sums every account's lines; then every account is
 * compared with its sums. It leaves the checkpoints at what it summed: the accounts' at their
 * sums, a clean scope's at the run's top seq (scopesToAdvance), another scope's totals corrected
 * where its checkpoint stands.
 */
export async function fullLedgerChecks(
  db: Db,
  scope: TenantScope | null,
  options: FullCheckOptions,
): Promise<LedgerChecks & { coverage: ReconciliationCoverage; records: RecordDigests }> {
  const estimate = scope
    ? null
    : Number(
        (await db.raw("SELECT GREATEST(reltuples, 0)::bigint::text AS n FROM pg_class WHERE relname = 'journal_lines'")).rows[0]?.n ?? 0,
      );
  // Every entry up to the top seq committed first: the record digests must hold them all.
  const top = await finalTop(db, scope);
  const throughSeq = top.seq;
  const scopes = await scopeCheckpoints(db, scope);
  const progress: FullRunProgress = { phase: 'entries', accounts: 0, entries: 0, lines: 0, linesEstimate: estimate };
  const entries: Mismatch[] = [];
  const totals = new Map<string, Mismatch & CurrencyTotals>();
  const atCheckpoint = new Map<string, Mismatch & CurrencyTotals>();
  const accountSums = new Map<string, LineSums>();
  const digests = new RecordDigestTotals();
  const checkpointSeqs = JSON.stringify(
    scopes.map((each) => ({ tenant_id: each.tenantId, environment: each.environment, verified_seq: each.verifiedSeq })),
  );
  let linesOfEntries = 0;
  for await (const batch of entryBatches(db, scope, throughSeq, checkpointSeqs, options.pace, options.batchSize)) {
    for (const mismatch of [...batch.unbalanced, ...batch.withoutEntry]) if (entries.length < MISMATCHES_MAX) entries.push(mismatch);
    for (const row of batch.sums) {
      const fields = { tenantId: row.tenantId, environment: row.environment, currencyCode: row.currencyCode };
      add(totals, `${scopeKey(row)}|${row.currencyCode}`, fields, row.debits, row.credits);
      add(atCheckpoint, `${scopeKey(row)}|${row.currencyCode}`, fields, row.checkpointDebits, row.checkpointCredits);
    }
    batch.accountNums.forEach((accountNum, index) => {
      const before = accountSums.get(accountNum);
      const debits = batch.accountDebits[index] ?? '0';
      const credits = batch.accountCredits[index] ?? '0';
      const lastSeq = batch.accountLastSeqs[index] ?? '0';
      accountSums.set(
        accountNum,
        before
          ? { debits: before.debits.plus(debits), credits: before.credits.plus(credits), lastSeq }
          : { debits: new BigNumber(debits), credits: new BigNumber(credits), lastSeq },
      );
    });
    digests.add(batch.digests);
    linesOfEntries += batch.lines;
    progress.entries += batch.entries;
    progress.lines += batch.lines;
    await options.onProgress(progress);
  }
  progress.phase = 'accounts';
  const balances: Mismatch[] = [];
  await accountsPass(db, scope, throughSeq, accountSums, options, progress, balances);
  // The accounts pass took every account it found off the list: what is left has lines but no account.
  entries.push(...(await linesWithoutAccount(db, [...accountSums.keys()])));
  for (const each of totals.values()) if (!new BigNumber(each.debits).eq(each.credits)) entries.push({ ...each, scope: 'totals' });

  const advanced = top.final ? scopesToAdvance(scopes, throughSeq, [...entries, ...balances]) : [];
  const resets = scopes
    .filter((each) => !advanced.includes(each))
    .map((each) => ({ scope: each, verifiedSeq: each.verifiedSeq, totals: totalsOf(atCheckpoint, each) }));
  await db.transaction(async (tx) => {
    await resetScopeTotals(tx, resets);
    await advanceScopeCheckpoints(
      tx,
      advanced.map((each) => advanceTo(each, throughSeq, totalsOf(totals, each))),
    );
  });
  progress.phase = 'done';
  await options.onProgress(progress);
  return {
    balances,
    entries: entries.slice(0, MISMATCHES_MAX),
    coverage: {
      mode: 'full',
      journal: { afterSeq: '0', throughSeq, entries: progress.entries, lines: linesOfEntries, accounts: progress.accounts },
    },
    records: digests.value(throughSeq),
  };
}
