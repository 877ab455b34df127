import BigNumber from 'bignumber.js';
import type { ReconciliationCoverage } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import { BOUND_SCOPE_KEY_SQL, scopeKeySql, type TenantScope } from '../journal/journal-store';
import { type AccountCheckpoint, advanceAccountCheckpoints, type CurrencyTotals, resetScopeTotals, scopeCheckpoints } from './checkpoint-store';
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
  /** Pause between batches, so postings keep their latency while the run goes on. */
  pauseMs: number;
  onProgress: (progress: FullRunProgress) => Promise<void>;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
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
async function accountsPass(db: Db, scope: TenantScope | null, throughSeq: string, sums: Map<string, LineSums>, options: FullCheckOptions, progress: FullRunProgress, found: Mismatch[]): Promise<void> {
  let after = '';
  for (;;) {
    const result = await db.raw(
      `SELECT a.id AS "accountId", a.num::text AS "accountNum", a.tenant_id AS "tenantId", a.environment, a.name AS "accountName", a.currency_code AS "currencyCode",
              a.normal_side AS "normalSide", a.balance::text AS balance, n.sum::text AS since
         FROM accounts a
         CROSS JOIN LATERAL (SELECT ${exactSumSql} AS sum FROM journal_lines l WHERE l.account_num = a.num AND l.entry_seq > ?) n
        WHERE a.id > ? ${scope ? 'AND a.tenant_id = ? AND a.environment = ?' : ''}
        ORDER BY a.id LIMIT ?`,
      [throughSeq, after, ...(scope ? [scope.tenantId, scope.environment] : []), options.batchSize * 10],
    );
    const rows = result.rows as AccountRow[];
    if (rows.length === 0) return;
    const checkpoints: AccountCheckpoint[] = [];
    for (const row of rows) {
      const summed = sums.get(row.accountNum);
      const sum = summed ? (row.normalSide === 'DR' ? summed.debits.minus(summed.credits) : summed.credits.minus(summed.debits)) : new BigNumber(0);
      sums.delete(row.accountNum);
      if (sum.eq(new BigNumber(row.balance).minus(row.since))) {
        if (summed) checkpoints.push({ accountId: row.accountId, verifiedSeq: summed.lastSeq, verifiedSum: sum.toFixed() });
        continue;
      }
      const exact = await exactSum(db, row.accountId);
      if (exact.lastSeq !== null) checkpoints.push({ accountId: row.accountId, verifiedSeq: exact.lastSeq, verifiedSum: exact.sum });
      if (!new BigNumber(exact.sum).eq(exact.balance) && found.length < MISMATCHES_MAX) {
        found.push({ accountId: row.accountId, tenantId: row.tenantId, environment: row.environment, accountName: row.accountName, currencyCode: row.currencyCode, materializedBalance: exact.balance, sumOfLines: exact.sum });
      }
    }
    await db.transaction((tx) => advanceAccountCheckpoints(tx, checkpoints, { reset: true }));
    progress.accounts += rows.length;
    after = rows[rows.length - 1]?.accountId ?? after;
    await options.onProgress(progress);
    await (options.sleep ?? defaultSleep)(options.pauseMs);
  }
}

interface EntryBatch {
  lastSeq: string | null;
  entries: number;
  lines: number;
  unbalanced: Mismatch[];
  sums: Array<{ tenantId: string; environment: string; currencyCode: string; debits: string; credits: string; checkpointDebits: string; checkpointCredits: string }>;
  /** Per account (by number) the batch moved: debits, credits, its last seq (arrays, one position per account). */
  accountNums: string[];
  accountDebits: string[];
  accountCredits: string[];
  accountLastSeqs: string[];
}

/**
 * Check 2 from zero, in seq order through `throughSeq` (the highest seq when the run began), one
 * batch of entries per statement: unbalanced entries, the totals per scope and currency (also up
 * to each scope's checkpoint, to put the checkpoint's totals right), and each account's sums for
 * check 1.
 */
async function entriesBatch(db: Db, scope: TenantScope | null, page: { afterSeq: string; throughSeq: string; limit: number }, checkpointSeqs: string): Promise<EntryBatch> {
  const result = await db.raw(
    `WITH e AS MATERIALIZED (
       SELECT id, seq, tenant_id, environment FROM journal_entries
        WHERE seq > ? AND seq <= ? ${scope ? `AND ${scopeKeySql('journal_entries')} = ${BOUND_SCOPE_KEY_SQL} AND tenant_id = ? AND environment = ?` : ''}
        ORDER BY seq LIMIT ?
     ),
     -- A line's currency is its account's; a line whose account is missing is left to linesWithoutAccount.
     l AS MATERIALIZED (
       SELECT e.id AS entry_id, e.seq, e.tenant_id, e.environment, l.account_num, a.num IS NOT NULL AS has_account, l.direction, l.amount, a.currency_code
         FROM e JOIN journal_lines l ON l.entry_seq = e.seq
         LEFT JOIN accounts a ON a.num = l.account_num
        WHERE l.entry_seq > ?
     ),
     cp AS (SELECT * FROM jsonb_to_recordset(?::jsonb) AS cp(tenant_id text, environment text, verified_seq bigint))
     SELECT
       (SELECT max(seq)::text FROM e) AS "lastSeq",
       (SELECT count(*)::int FROM e) AS entries,
       (SELECT count(*)::int FROM l) AS lines,
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT entry_id AS "journalEntryId", tenant_id AS "tenantId", environment, currency_code AS "currencyCode",
                 (SUM(amount) FILTER (WHERE direction = 'DR'))::text AS debits, (SUM(amount) FILTER (WHERE direction = 'CR'))::text AS credits
            FROM l WHERE has_account GROUP BY entry_id, tenant_id, environment, currency_code
           HAVING COALESCE(SUM(amount) FILTER (WHERE direction = 'DR'), 0) <> COALESCE(SUM(amount) FILTER (WHERE direction = 'CR'), 0)
           ORDER BY min(seq) LIMIT ${MISMATCHES_MAX}) x) AS unbalanced,
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT l.tenant_id AS "tenantId", l.environment, l.currency_code AS "currencyCode",
                 COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'DR'), 0)::text AS debits,
                 COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'CR'), 0)::text AS credits,
                 COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'DR' AND l.seq <= cp.verified_seq), 0)::text AS "checkpointDebits",
                 COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'CR' AND l.seq <= cp.verified_seq), 0)::text AS "checkpointCredits"
            FROM l LEFT JOIN cp ON cp.tenant_id = l.tenant_id AND cp.environment = l.environment
           WHERE l.has_account
           GROUP BY l.tenant_id, l.environment, l.currency_code) x) AS sums,
       a."accountNums", a."accountDebits", a."accountCredits", a."accountLastSeqs"
       FROM (SELECT COALESCE(array_agg(account_num::text), '{}') AS "accountNums", COALESCE(array_agg(debits::text), '{}') AS "accountDebits",
                    COALESCE(array_agg(credits::text), '{}') AS "accountCredits", COALESCE(array_agg(last_seq::text), '{}') AS "accountLastSeqs"
               FROM (SELECT account_num, COALESCE(SUM(amount) FILTER (WHERE direction = 'DR'), 0) AS debits, COALESCE(SUM(amount) FILTER (WHERE direction = 'CR'), 0) AS credits, max(seq) AS last_seq
                       FROM l GROUP BY account_num) per_account) a`,
    [page.afterSeq, page.throughSeq, ...(scope ? [scope.tenantId, scope.environment, scope.tenantId, scope.environment] : []), page.limit, page.afterSeq, checkpointSeqs],
  );
  return result.rows[0] as EntryBatch;
}

function add(totals: Map<string, Mismatch & CurrencyTotals>, key: string, fields: Mismatch, debits: string, credits: string): void {
  const before = totals.get(key);
  totals.set(key, { ...fields, debits: new BigNumber(before?.debits ?? '0').plus(debits).toFixed(), credits: new BigNumber(before?.credits ?? '0').plus(credits).toFixed() });
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

/** Lines naming no entry are not reached from the entries: counted against the lines the entries have (through the run's top seq), and looked for only when the counts differ. */
async function linesWithoutEntry(db: Db, throughSeq: string, linesOfEntries: number): Promise<Mismatch[]> {
  const counted = await db.raw('SELECT count(*)::bigint::text AS lines FROM journal_lines WHERE entry_seq <= ?', [throughSeq]);
  if (BigInt((counted.rows[0] as { lines: string }).lines) <= BigInt(linesOfEntries)) return [];
  const result = await db.raw(
    `SELECT l.entry_seq::text AS "entrySeq", l.line_no AS "lineNo", l.account_num::text AS "accountNum", 'line without entry' AS problem
       FROM journal_lines l WHERE l.entry_seq <= ? AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.seq = l.entry_seq) LIMIT ${MISMATCHES_MAX}`,
    [throughSeq],
  );
  return result.rows as Mismatch[];
}

/**
 * Checks 1 and 2 from zero, in batches with a pause between them: the background re-verification
 * that finds what the checkpoints already passed (a line edited in place, a balance wrong before
 * its account's checkpoint). One pass over the entries in seq order (the journal read in the
 * order it was written) checks them and sums every account's lines; then every account is
 * compared with its sums. It leaves the checkpoints at what it summed.
 */
export async function fullLedgerChecks(db: Db, scope: TenantScope | null, options: FullCheckOptions): Promise<LedgerChecks & { coverage: ReconciliationCoverage }> {
  const estimate = scope ? null : Number((await db.raw("SELECT GREATEST(reltuples, 0)::bigint::text AS n FROM pg_class WHERE relname = 'journal_lines'")).rows[0]?.n ?? 0);
  const top = await db.raw(
    `SELECT COALESCE(max(seq), 0)::text AS seq FROM journal_entries ${scope ? `WHERE ${scopeKeySql('journal_entries')} = ${BOUND_SCOPE_KEY_SQL} AND tenant_id = ? AND environment = ?` : ''}`,
    scope ? [scope.tenantId, scope.environment, scope.tenantId, scope.environment] : [],
  );
  const throughSeq = (top.rows[0] as { seq: string }).seq;
  const scopes = await scopeCheckpoints(db, scope);
  const progress: FullRunProgress = { phase: 'entries', accounts: 0, entries: 0, lines: 0, linesEstimate: estimate };
  const entries: Mismatch[] = [];
  const totals = new Map<string, Mismatch & CurrencyTotals>();
  const atCheckpoint = new Map<string, Mismatch & CurrencyTotals>();
  const accountSums = new Map<string, LineSums>();
  const checkpointSeqs = JSON.stringify(scopes.map((each) => ({ tenant_id: each.tenantId, environment: each.environment, verified_seq: each.verifiedSeq })));
  let linesOfEntries = 0;
  for (let afterSeq = '0'; ; ) {
    const batch = await entriesBatch(db, scope, { afterSeq, throughSeq, limit: options.batchSize * 10 }, checkpointSeqs);
    if (batch.lastSeq === null) break;
    for (const mismatch of batch.unbalanced) if (entries.length < MISMATCHES_MAX) entries.push(mismatch);
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
      accountSums.set(accountNum, before ? { debits: before.debits.plus(debits), credits: before.credits.plus(credits), lastSeq } : { debits: new BigNumber(debits), credits: new BigNumber(credits), lastSeq });
    });
    linesOfEntries += batch.lines;
    progress.entries += batch.entries;
    progress.lines += batch.lines;
    afterSeq = batch.lastSeq;
    await options.onProgress(progress);
    await (options.sleep ?? defaultSleep)(options.pauseMs);
  }
  progress.phase = 'accounts';
  const balances: Mismatch[] = [];
  await accountsPass(db, scope, throughSeq, accountSums, options, progress, balances);
  // The accounts pass took every account it found off the list: what is left has lines but no account.
  entries.push(...(await linesWithoutAccount(db, [...accountSums.keys()])));
  for (const each of totals.values()) if (!new BigNumber(each.debits).eq(each.credits)) entries.push({ ...each, scope: 'totals' });
  if (!scope) entries.push(...(await linesWithoutEntry(db, throughSeq, linesOfEntries)));

  const resets = scopes.map((each) => {
    const scopeTotals: Record<string, CurrencyTotals> = {};
    for (const [key, sum] of atCheckpoint) if (key.startsWith(`${scopeKey(each)}|`)) scopeTotals[sum.currencyCode as string] = { debits: sum.debits, credits: sum.credits };
    return { scope: each, verifiedSeq: each.verifiedSeq, totals: scopeTotals };
  });
  await db.transaction((tx) => resetScopeTotals(tx, resets));
  progress.phase = 'done';
  await options.onProgress(progress);
  return {
    balances,
    entries: entries.slice(0, MISMATCHES_MAX),
    coverage: { mode: 'full', journal: { afterSeq: '0', throughSeq, entries: progress.entries, lines: linesOfEntries, accounts: progress.accounts } },
  };
}
