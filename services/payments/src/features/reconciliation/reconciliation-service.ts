import { type BusinessRecordSource, formatAmount, type ReconciliationResult, RECONCILIATION_CHECK_NAMES, type ReconciliationCheckName } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import type { LedgerJournal } from '../ledger/ledger-journal';
import { checkBusinessRecords, type Mismatch, MismatchList } from './business-records-check';
import { nextScopeWithWallets, type ReconciliationScope, stalePendingSlips, unmatchedStatementLines } from './reconciliation-store';

/** Per check, as the ledger's checks: a report lists the first ones, enough to act on. */
export const MISMATCHES_MAX = 100;
const HOUR_MS = 3_600_000;

/** The ledger's names for checks 1 and 2, and the names this report gives them. */
const LEDGER_CHECK_NAMES: Record<string, ReconciliationCheckName> = {
  account_balances_match_lines: 'balances',
  entries_balance: 'entries_balance',
};

export interface ReconciliationServiceOptions {
  db: Db;
  ledger: LedgerJournal;
  sources: readonly BusinessRecordSource[];
  /** Sources other services serve (treasury's float deposits and withdrawals), asked for on each run. */
  remoteSources?: () => Promise<readonly BusinessRecordSource[]>;
  /** A bank slip pending longer than this is bank evidence to chase. */
  slipMaxAgeHours: number;
  now?: () => Date;
}

/**
 * The four checks of api-decisions section 9 for one tenant's environment, or (scope null) for
 * every tenant: 1 and 2 are the ledger's own, asked over HTTP (no answer is a 503, never a
 * guessed "ok"); 3 and 4 compare payments' records with the ledger and with the bank.
 */
export class ReconciliationService {
  constructor(private readonly options: ReconciliationServiceOptions) {}

  async run(scope: ReconciliationScope | null): Promise<ReconciliationResult> {
    const checkedAt = (this.options.now ?? (() => new Date()))();
    const ledgerChecks = await this.ledgerChecks(scope);
    const businessRecords = new MismatchList(MISMATCHES_MAX);
    const sources = [...this.options.sources, ...((await this.options.remoteSources?.()) ?? [])];
    await checkBusinessRecords({ sources, ledger: this.options.ledger, nextScope: (after) => nextScopeWithWallets(this.options.db, after) }, scope, businessRecords);
    const found: Record<ReconciliationCheckName, Mismatch[]> = {
      ...ledgerChecks,
      business_records: businessRecords.items,
      bank_evidence: await this.bankEvidence(scope, checkedAt),
    };
    const checks = RECONCILIATION_CHECK_NAMES.map((name) => ({ name, status: found[name].length === 0 ? ('ok' as const) : ('mismatch' as const), mismatches: found[name] }));
    return { status: checks.every((check) => check.status === 'ok') ? 'ok' : 'mismatch', checks, checkedAt: checkedAt.toISOString() };
  }

  private async ledgerChecks(scope: ReconciliationScope | null): Promise<Record<'balances' | 'entries_balance', Mismatch[]>> {
    const result = await this.options.ledger.checks(scope);
    const byName = new Map(result.checks.map((check) => [LEDGER_CHECK_NAMES[check.name], check.mismatches]));
    const balances = byName.get('balances');
    const entriesBalance = byName.get('entries_balance');
    if (!balances || !entriesBalance || byName.size !== 2) throw new Error(`the ledger answered checks ${result.checks.map((check) => check.name).join(', ')}, not its two`);
    return { balances, entries_balance: entriesBalance };
  }

  /** Check 4: statement lines no deposit used, and slips pending longer than the configured age. */
  private async bankEvidence(scope: ReconciliationScope | null, checkedAt: Date): Promise<Mismatch[]> {
    const { db, slipMaxAgeHours } = this.options;
    const lines = await unmatchedStatementLines(db, scope, MISMATCHES_MAX);
    const submittedBefore = new Date(checkedAt.getTime() - slipMaxAgeHours * HOUR_MS);
    const slips = await stalePendingSlips(db, scope, { submittedBefore, limit: MISMATCHES_MAX });
    return [
      ...lines.map((line) => ({ problem: 'unmatched_statement_line', ...line, amount: formatAmount(line.amount, line.currencyCode) })),
      ...slips.map((slip) => ({
        problem: 'pending_slip_too_old',
        ...slip,
        amount: formatAmount(slip.amount, slip.currencyCode),
        createdAt: slip.createdAt.toISOString(),
        maxAgeHours: slipMaxAgeHours,
      })),
    ];
  }
}
