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
