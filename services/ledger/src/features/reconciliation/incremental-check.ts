import BigNumber from 'bignumber.js';
import type { ReconciliationCoverage } from '@wallet/contracts';
import { advanceHighWater, type Db, highWaterMoved, type SnapshotBounds, snapshotBounds, type Tx } from '@wallet/kit';
import { scopeKeySql, scopeOrderSql, scopeSeqRangeSql, type TenantScope } from '../journal/journal-scope';
import {
  type AccountCheckpoint,
  advanceAccountCheckpoints,
  advanceScopeCheckpoints,
  type CurrencyTotals,
  type ScopeAdvance,
  type ScopeCheckpoint,
  scopeCheckpoints,
} from './checkpoint-store';
import { type LedgerChecks, MISMATCHES_MAX, type Mismatch } from './ledger-checks';

type Row = Record<string, unknown>;

interface NewEntries {
  unbalanced: Array<Row & { seq: string }>;
  /** Scopes with an unbalanced entry, a line without account or (added after) an account whose lines do not add up to its balance: their checkpoints stay. */
  held: Array<{ tenantId: string; environment: string; seq: string }>;
  sums: Array<{
    tenantId: string;
    environment: string;
    currencyCode: string;
    debits: string;
    credits: string;
    splitDebits: string;
    splitCredits: string;
  }>;
  seen: Array<{ tenantId: string; environment: string; maxSeq: string; entries: number }>;
  lines: number;
  orphans: Row[];
  touched: string[];
}

const scopeKey = (scope: { tenantId: string; environment: string }): string => `${scope.tenantId}|${scope.environment}`;
const maxSeq = (a: string, b: string): string => (BigInt(a) >= BigInt(b) ? a : b);

/**
 * The entries of each scope after its checkpoint, read through journal_entries_scope_seq and
 * their lines by primary key, aggregated in one statement. `split_seq` is where the checkpoint
 * may move to (the seq the last run saw, once every transaction then running has ended): the
 * sums up to there are the totals to keep.
 */
async function readNewEntries(tx: Tx, scopes: readonly ScopeCheckpoint[], entriesMax: number): Promise<NewEntries> {
  const result = await tx.raw(
    `WITH s AS (SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS s(tenant_id, environment, from_seq, split_seq)),
     e AS MATERIALIZED (
       SELECT e.id, e.seq, e.tenant_id, e.environment, s.split_seq
         FROM s CROSS JOIN LATERAL (
           SELECT id, seq, tenant_id, environment FROM journal_entries j
            WHERE ${scopeSeqRangeSql('j', scopeKeySql('s'), 's.from_seq')} AND j.tenant_id = s.tenant_id AND j.environment = s.environment
            ORDER BY ${scopeOrderSql('j')} LIMIT ${entriesMax}
         ) e
     ),
     -- Lines by primary key, entry by entry (OFFSET 0 keeps the lateral join from being flattened into a hash join over every line);
     -- a line's currency is its account's, so a line whose account is missing has none and is reported on its own.
     l AS MATERIALIZED (
       SELECT e.id AS entry_id, e.seq, e.tenant_id, e.environment, e.split_seq, l.line_no, l.account_num, a.id AS account_id, l.direction, l.amount, a.currency_code
         FROM e CROSS JOIN LATERAL (SELECT * FROM journal_lines j WHERE j.entry_seq = e.seq OFFSET 0) l
         LEFT JOIN accounts a ON a.num = l.account_num
     ),
     bad AS MATERIALIZED (
       SELECT entry_id, tenant_id, environment, currency_code, min(seq) AS seq,
              SUM(amount) FILTER (WHERE direction = 'DR') AS debits, SUM(amount) FILTER (WHERE direction = 'CR') AS credits
         FROM l WHERE account_id IS NOT NULL GROUP BY entry_id, tenant_id, environment, currency_code
        HAVING COALESCE(SUM(amount) FILTER (WHERE direction = 'DR'), 0) <> COALESCE(SUM(amount) FILTER (WHERE direction = 'CR'), 0)
     ),
     orphan AS MATERIALIZED (
       SELECT entry_id, seq, tenant_id, environment, line_no, account_num FROM l WHERE account_id IS NULL
     )
     SELECT
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT entry_id AS "journalEntryId", tenant_id AS "tenantId", environment, currency_code AS "currencyCode", seq::text AS seq, debits::text AS debits, credits::text AS credits
            FROM bad ORDER BY seq LIMIT ${MISMATCHES_MAX}) x) AS unbalanced,
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT tenant_id AS "tenantId", environment, min(seq)::text AS seq
            FROM (SELECT tenant_id, environment, seq FROM bad UNION ALL SELECT tenant_id, environment, seq FROM orphan) held GROUP BY tenant_id, environment) x) AS held,
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT tenant_id AS "tenantId", environment, currency_code AS "currencyCode",
                 COALESCE(SUM(amount) FILTER (WHERE direction = 'DR'), 0)::text AS debits,
                 COALESCE(SUM(amount) FILTER (WHERE direction = 'CR'), 0)::text AS credits,
                 COALESCE(SUM(amount) FILTER (WHERE direction = 'DR' AND seq <= split_seq), 0)::text AS "splitDebits",
                 COALESCE(SUM(amount) FILTER (WHERE direction = 'CR' AND seq <= split_seq), 0)::text AS "splitCredits"
            FROM l WHERE account_id IS NOT NULL GROUP BY tenant_id, environment, currency_code) x) AS sums,
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT tenant_id AS "tenantId", environment, max(seq)::text AS "maxSeq", count(*)::int AS entries FROM e GROUP BY tenant_id, environment) x) AS seen,
       (SELECT count(*)::int FROM l) AS lines,
       (SELECT COALESCE(json_agg(x), '[]') FROM (
          SELECT entry_id AS "journalEntryId", line_no AS "lineNo", account_num::text AS "accountNum", 'line without account' AS problem
            FROM orphan ORDER BY seq, line_no LIMIT ${MISMATCHES_MAX}) x) AS orphans,
       (SELECT COALESCE(array_agg(DISTINCT account_id) FILTER (WHERE account_id IS NOT NULL), '{}') FROM l) AS touched`,
    [scopes.map((s) => s.tenantId), scopes.map((s) => s.environment), scopes.map((s) => s.verifiedSeq), scopes.map((s) => splitSeq(s))],
  );
  return result.rows[0] as NewEntries;
}

/** Until the next run knows better, the checkpoint may only move to what the last run saw. */
function splitSeq(scope: ScopeCheckpoint): string {
  return maxSeq(scope.seenSeq, scope.verifiedSeq);
}

interface TouchedAccount {
  accountId: string;
  tenantId: string;
  environment: string;
  accountName: string;
  currencyCode: string;
  balance: string;
  checkpointSum: string;
  newSum: string;
  lastSeq: string | null;
  lines: number;
}

/** Check 1 for the accounts new lines moved: checkpoint + lines after it, each an index range scan on journal_lines_account. */
async function touchedAccounts(tx: Tx, ids: readonly string[]): Promise<TouchedAccount[]> {
  if (ids.length === 0) return [];
  const result = await tx.raw(
    `SELECT a.id AS "accountId", a.tenant_id AS "tenantId", a.environment, a.name AS "accountName", a.currency_code AS "currencyCode",
            a.balance::text AS balance, COALESCE(cp.verified_sum, 0)::text AS "checkpointSum",
            n.sum::text AS "newSum", n.last_seq::text AS "lastSeq", n.lines::int AS lines
       FROM accounts a
       LEFT JOIN reconciliation_account_checkpoints cp ON cp.account_id = a.id
       CROSS JOIN LATERAL (
         SELECT COALESCE(SUM(CASE WHEN l.direction = a.normal_side THEN l.amount ELSE -l.amount END), 0) AS sum, max(l.entry_seq) AS last_seq, count(*) AS lines
           FROM journal_lines l WHERE l.account_num = a.num AND l.entry_seq > COALESCE(cp.verified_seq, -1)
       ) n
      WHERE a.id = ANY(?::text[])`,
    [[...ids]],
  );
  return result.rows as TouchedAccount[];
}

/**
 * Check 1 for every other account: nothing moved it since its checkpoint, so its balance is the
 * checkpoint's sum. In a scope read only in part (`readThrough`: more entries than a run reads),
 * an account with lines after what was read is left to the run that reads them.
 */
async function untouchedAccountsAdrift(
  tx: Tx,
  scope: TenantScope | null,
  touched: readonly string[],
  readThrough: ReadonlyArray<{ tenantId: string; environment: string; maxSeq: string }>,
): Promise<Row[]> {
  const where = scope ? 'a.tenant_id = ? AND a.environment = ?' : 'TRUE';
  const result = await tx.raw(
    `SELECT a.id AS "accountId", a.tenant_id AS "tenantId", a.environment, a.name AS "accountName", a.currency_code AS "currencyCode",
            a.balance::text AS "materializedBalance", COALESCE(cp.verified_sum, 0)::text AS "sumOfLines"
       FROM accounts a
       LEFT JOIN reconciliation_account_checkpoints cp ON cp.account_id = a.id
       LEFT JOIN unnest(?::text[]) AS t(id) ON t.id = a.id
       LEFT JOIN unnest(?::text[], ?::text[], ?::bigint[]) AS r(tenant_id, environment, through_seq) ON r.tenant_id = a.tenant_id AND r.environment = a.environment
      WHERE ${where} AND t.id IS NULL AND a.balance <> COALESCE(cp.verified_sum, 0)
        AND NOT (r.through_seq IS NOT NULL AND EXISTS (SELECT 1 FROM journal_lines l WHERE l.account_num = a.num AND l.entry_seq > r.through_seq))
      ORDER BY a.id
      LIMIT ${MISMATCHES_MAX}`,
    [
      [...touched],
      readThrough.map((each) => each.tenantId),
      readThrough.map((each) => each.environment),
      readThrough.map((each) => each.maxSeq),
      ...(scope ? [scope.tenantId, scope.environment] : []),
    ],
  );
  return result.rows as Row[];
}

function addTotals(base: CurrencyTotals | undefined, debits: string, credits: string): CurrencyTotals {
  return {
    debits: new BigNumber(base?.debits ?? '0').plus(debits).toFixed(),
    credits: new BigNumber(base?.credits ?? '0').plus(credits).toFixed(),
  };
}

/**
 * Where each scope's checkpoint moves (see advanceHighWater): nowhere while something in it is
 * found wrong, so the next run reports it again; the totals follow it.
 */
function scopeAdvances(scopes: readonly ScopeCheckpoint[], found: NewEntries, snapshot: SnapshotBounds): ScopeAdvance[] {
  const seen = new Map(found.seen.map((row) => [scopeKey(row), row]));
  const held = new Set(found.held.map(scopeKey));
  const sums = new Map<string, NewEntries['sums']>();
  for (const row of found.sums) sums.set(scopeKey(row), [...(sums.get(scopeKey(row)) ?? []), row]);
  const advances: ScopeAdvance[] = [];
  for (const scope of scopes) {
    const key = scopeKey(scope);
    const topSeq = seen.get(key)?.maxSeq ?? scope.verifiedSeq;
    const next = advanceHighWater(scope, {
      topSeq,
      snapshot,
      holdBelow: held.has(key) ? (BigInt(scope.verifiedSeq) + 1n).toString() : null,
    });
    if (!highWaterMoved(scope, next)) continue;
    const totals = { ...scope.totals };
    if (next.verifiedSeq !== scope.verifiedSeq) {
      // The checkpoint moves either to all the run saw or to what the last run saw (split_seq).
      const all = next.verifiedSeq === topSeq;
      for (const row of sums.get(key) ?? [])
        totals[row.currencyCode] = addTotals(
          totals[row.currencyCode],
          all ? row.debits : row.splitDebits,
          all ? row.credits : row.splitCredits,
        );
    }
    advances.push({
      next: { tenantId: scope.tenantId, environment: scope.environment, totals, ...next },
      previous: { verifiedSeq: scope.verifiedSeq, seenSeq: scope.seenSeq },
    });
  }
  return advances;
}

/** Totals per scope and currency: the checkpoint's plus the new lines'; they must balance. */
function totalsAdrift(scopes: readonly ScopeCheckpoint[], found: NewEntries): Mismatch[] {
  const totals = new Map<string, Mismatch & { debits: string; credits: string }>();
  for (const scope of scopes) {
    for (const [currencyCode, each] of Object.entries(scope.totals)) {
      totals.set(`${scopeKey(scope)}|${currencyCode}`, {
        tenantId: scope.tenantId,
        environment: scope.environment,
        currencyCode,
        debits: each.debits,
        credits: each.credits,
      });
    }
  }
  for (const row of found.sums) {
    const key = `${scopeKey(row)}|${row.currencyCode}`;
    const sum = addTotals(totals.get(key), row.debits, row.credits);
    totals.set(key, { tenantId: row.tenantId, environment: row.environment, currencyCode: row.currencyCode, ...sum });
  }
  return [...totals.values()].filter((each) => !new BigNumber(each.debits).eq(each.credits)).map((each) => ({ ...each, scope: 'totals' }));
}

/**
 * Checks 1 and 2 from the checkpoints on, in one repeatable-read snapshot (balances and lines
 * seen together, so a posting committing meanwhile is no mismatch); the checkpoints then move in
 * a second, short transaction. A run reads at most `entriesMax` entries of a scope, its oldest:
 * after a long pause the checks catch up over several runs, each answering in bounded time, the
 * coverage saying how far each got.
 */
export async function incrementalLedgerChecks(
  db: Db,
  scope: TenantScope | null,
  options: { entriesMax: number },
): Promise<LedgerChecks & { coverage: ReconciliationCoverage }> {
  const read = await db.transaction(
    async (tx) => {
      // First statement: the transaction's snapshot is taken here, and is the one described.
      const snapshot = await snapshotBounds(tx);
      // The planner prices these statements for a journal of any size; compiling them (JIT) costs
      // far more than the index probes they run.
      await tx.raw('SET LOCAL jit = off');
      const scopes = await scopeCheckpoints(tx, scope);
      const found = await readNewEntries(tx, scopes, options.entriesMax);
      const touched = await touchedAccounts(tx, found.touched);
      const adrift = await untouchedAccountsAdrift(
        tx,
        scope,
        found.touched,
        found.seen.filter((each) => each.entries >= options.entriesMax),
      );
      return { snapshot, scopes, found, touched, adrift };
    },
    { isolationLevel: 'repeatable read' },
  );
  const { snapshot, scopes, found, touched, adrift } = read;
  const balances: Mismatch[] = [];
  const checkpoints: AccountCheckpoint[] = [];
  for (const account of touched) {
    const sum = new BigNumber(account.checkpointSum).plus(account.newSum);
    if (!sum.eq(account.balance)) {
      const { balance, checkpointSum: _c, newSum: _n, lastSeq: _l, lines: _lines, ...fields } = account;
      balances.push({ ...fields, materializedBalance: balance, sumOfLines: sum.toFixed() });
      // Its lines or its balance are wrong: the checkpoint stays, and so does its scope's, so the
      // next run reads the same lines again (and finds them right once they are put back).
      found.held.push({ tenantId: account.tenantId, environment: account.environment, seq: account.lastSeq ?? '0' });
    } else if (account.lastSeq !== null)
      checkpoints.push({ accountId: account.accountId, verifiedSeq: account.lastSeq, verifiedSum: sum.toFixed() });
  }
  balances.push(...adrift);
  await db.transaction(async (tx) => {
    await advanceAccountCheckpoints(tx, checkpoints);
    await advanceScopeCheckpoints(tx, scopeAdvances(scopes, found, snapshot));
  });
  const entries = [...found.unbalanced.map(({ seq: _seq, ...row }) => row), ...totalsAdrift(scopes, found), ...found.orphans];
  const seenScopes = new Set(found.seen.map(scopeKey));
  const withNew = scopes.filter((each) => seenScopes.has(scopeKey(each)));
  return {
    balances: balances.slice(0, MISMATCHES_MAX),
    entries: entries.slice(0, MISMATCHES_MAX),
    coverage: {
      mode: 'incremental',
      journal: {
        afterSeq: withNew.reduce(
          (low, each) => (BigInt(each.verifiedSeq) < BigInt(low) ? each.verifiedSeq : low),
          withNew[0]?.verifiedSeq ?? scopes.reduce((top, each) => maxSeq(top, each.verifiedSeq), '0'),
        ),
        throughSeq: found.seen.reduce(
          (top, row) => maxSeq(top, row.maxSeq),
          scopes.reduce((top, each) => maxSeq(top, each.verifiedSeq), '0'),
        ),
        entries: found.seen.reduce((total, row) => total + row.entries, 0),
        lines: found.lines,
        accounts: touched.length,
      },
    },
  };
}
