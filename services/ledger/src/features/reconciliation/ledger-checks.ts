import { formatAmount, type ReconciliationCoverage, type ReconciliationResult } from '@wallet/contracts';

/** Per check, a report lists the first ones: enough to act on. */
export const MISMATCHES_MAX = 100;
const AMOUNT_FIELDS = ['materializedBalance', 'sumOfLines', 'debits', 'credits'];

export type Mismatch = Record<string, unknown>;

/** What checks 1 (balances) and 2 (entries and totals) found. */
export interface LedgerChecks {
  balances: Mismatch[];
  entries: Mismatch[];
}

/** Amounts in mismatch reports are written at their currency's scale, like everywhere else. */
function formatAmounts(row: Mismatch): Mismatch {
  const currencyCode = row.currencyCode as string;
  const formatted = { ...row };
  for (const field of AMOUNT_FIELDS) {
    if (field in formatted) formatted[field] = formatAmount((formatted[field] as string | null) ?? '0', currencyCode);
  }
  return formatted;
}

/** The ledger's answer: checks 1 and 2 of docs/decisions/reconciliation.md under its own names, and what they covered. */
export function ledgerResult(found: LedgerChecks, coverage: ReconciliationCoverage, checkedAt: Date): ReconciliationResult {
  const checks = [
    { name: 'account_balances_match_lines', mismatches: found.balances },
    { name: 'entries_balance', mismatches: found.entries },
  ].map((check) => ({
    name: check.name,
    mismatches: check.mismatches.map(formatAmounts),
    status: check.mismatches.length === 0 ? ('ok' as const) : ('mismatch' as const),
  }));
  return {
    status: checks.every((check) => check.status === 'ok') ? 'ok' : 'mismatch',
    checks,
    checkedAt: checkedAt.toISOString(),
    coverage,
  };
}

/** The shards' answers as one: a check is ok when it is on every shard; the journal coverage spans the shards' seqs. */
export function mergeLedgerResults(results: readonly ReconciliationResult[]): ReconciliationResult {
  const [first] = results;
  if (!first || results.length === 1) return first ?? ledgerResult({ balances: [], entries: [] }, { mode: 'incremental' }, new Date());
  const checks = first.checks.map((check) => {
    const mismatches = results.flatMap((result) => result.checks.find((each) => each.name === check.name)?.mismatches ?? []);
    return {
      name: check.name,
      mismatches: mismatches.slice(0, MISMATCHES_MAX),
      status: mismatches.length === 0 ? ('ok' as const) : ('mismatch' as const),
    };
  });
  return {
    status: checks.every((check) => check.status === 'ok') ? 'ok' : 'mismatch',
    checks,
    checkedAt:
      results
        .map((result) => result.checkedAt)
        .sort()
        .at(-1) ?? first.checkedAt,
    coverage: mergedCoverage(results.map((result) => result.coverage)),
  };
}

function mergedCoverage(coverages: ReadonlyArray<ReconciliationCoverage | undefined>): ReconciliationCoverage | undefined {
  const [first] = coverages;
  if (!first) return undefined;
  const journals = coverages.flatMap((coverage) => (coverage?.journal ? [coverage.journal] : []));
  if (journals.length === 0) return first;
  const seqs = (field: 'afterSeq' | 'throughSeq') => journals.map((journal) => BigInt(journal[field]));
  const count = (field: 'entries' | 'lines' | 'accounts') => journals.reduce((total, journal) => total + journal[field], 0);
  const least = seqs('afterSeq').reduce((low, seq) => (seq < low ? seq : low));
  const most = seqs('throughSeq').reduce((high, seq) => (seq > high ? seq : high));
  return {
    ...first,
    journal: {
      afterSeq: least.toString(),
      throughSeq: most.toString(),
      entries: count('entries'),
      lines: count('lines'),
      accounts: count('accounts'),
    },
  };
}
