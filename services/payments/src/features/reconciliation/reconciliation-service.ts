import {
  type BusinessRecordsCheck,
  type Environment,
  formatAmount,
  type RecordDigests,
  type ReconciliationCoverage,
  type ReconciliationResult,
  RECONCILIATION_CHECK_NAMES,
  type ReconciliationCheckName,
  type RecordsCoverage,
} from '@wallet/contracts';
import { type BackgroundPace, type Db } from '@wallet/kit';
import type { LedgerReads } from '@wallet/money-commands';
import { unmatchedStatementLines } from '../bank-statements/statement-lines';
import { stalePendingSlips } from '../deposits/deposit-records';
import type { TreasuryRecords } from './treasury-records';
import {
  checkAllRecords,
  checkOwnRecords,
  type JournalForRecords,
  type LocalRecordSource,
  type Mismatch,
  MismatchList,
  type PassDigests,
  scopesWithRecords,
} from '@wallet/money-commands';

/** One tenant's environment; null where a scope is asked for means every tenant. */
export interface ReconciliationScope {
  tenantId: string;
  environment: Environment;
}

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
  ledger: LedgerReads;
  /** Check 3's questions to the ledger (entries by id, entries naming a record after a seq). */
  journal: JournalForRecords;
  /** Payments' own records: transfers, deposits, payout cases. */
  sources: readonly LocalRecordSource[];
  /** Treasury answers check 3 for its own records. */
  treasury?: TreasuryRecords;
  /** A bank slip pending longer than this is bank evidence to chase. */
  slipMaxAgeHours: number;
  /** Told how a full run compared each scope's records of a type (a metric). */
  onFullCompared?: (referenceType: string, how: 'digest' | 'one_by_one') => void;
  /** How a full run gives way to payments' traffic. */
  pace?: BackgroundPace;
  /** An open record is re-read by check 3 this long after it was created. */
  lookbackMs: number;
  now?: () => Date;
}

/** Check 3's part of a run: what it found, and what it covered. */
export interface RecordsFound {
  mismatches: Mismatch[];
  coverage: RecordsCoverage[];
}

/**
 * The four checks of docs/decisions/reconciliation.md for one tenant's environment, or (scope null) for
 * every tenant, each from where the last run left off: 1 and 2 are the ledger's own, asked over
 * HTTP (no answer is a 503, never a guessed "ok"); 3 is each service's over its own records
 * (payments' here, treasury's asked of treasury); 4 compares payments' deposits with the bank.
 */
export class ReconciliationService {
  constructor(private readonly options: ReconciliationServiceOptions) {}

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  async run(scope: ReconciliationScope | null): Promise<ReconciliationResult> {
    const checkedAt = this.now();
    // Independent reads of three services: side by side, the answer waits for the slowest only.
    const [ledger, records, bank] = await Promise.all([
      this.options.ledger.checks(scope),
      this.businessRecords(scope),
      this.bankEvidence(scope, checkedAt),
    ]);
    return this.assemble(ledger, records, bank, checkedAt, 'incremental');
  }

  /** The four checks' answer from the ledger's result (checks 1 and 2), check 3's and check 4's. */
  assemble(
    ledger: ReconciliationResult,
    records: RecordsFound,
    bankEvidence: Mismatch[],
    checkedAt: Date,
    mode: ReconciliationCoverage['mode'],
  ): ReconciliationResult {
    const found: Record<ReconciliationCheckName, Mismatch[]> = {
      ...ledgerChecks(ledger),
      business_records: records.mismatches,
      bank_evidence: bankEvidence,
    };
    const checks = RECONCILIATION_CHECK_NAMES.map((name) => ({
      name,
      status: found[name].length === 0 ? ('ok' as const) : ('mismatch' as const),
      mismatches: found[name],
    }));
    const coverage: ReconciliationCoverage = {
      mode,
      ...(ledger.coverage?.journal ? { journal: ledger.coverage.journal } : {}),
      records: records.coverage,
    };
    return {
      status: checks.every((check) => check.status === 'ok') ? 'ok' : 'mismatch',
      checks,
      checkedAt: checkedAt.toISOString(),
      coverage,
    };
  }

  /** Check 3 from the marks on: payments' records here while treasury checks its own. */
  async businessRecords(scope: ReconciliationScope | null): Promise<RecordsFound> {
    const { db, journal, sources, lookbackMs } = this.options;
    const mismatches = new MismatchList(MISMATCHES_MAX);
    const scopes = await this.scopes(scope);
    const treasury = this.options.treasury;
    const [coverage, found] = await Promise.all([
      checkOwnRecords({ db, journal, sources, lookbackMs }, scopes, mismatches),
      treasury?.check(scope, { mode: 'incremental', limit: MISMATCHES_MAX }),
    ]);
    return this.withTreasury(mismatches, coverage, found);
  }

  /**
   * Check 3 of a full run: payments' records from zero while the ledger's full pass goes on (its
   * digests are waited for at the end), then treasury's against the same digests, so the ledger
   * serves one at a time.
   */
  async allBusinessRecords(
    scope: ReconciliationScope | null,
    passDigests: PassDigests,
    options: { onProgress: (records: number) => Promise<void>; treasuryTimeoutMs: number },
  ): Promise<RecordsFound> {
    const { db, journal, sources, lookbackMs } = this.options;
    const mismatches = new MismatchList(MISMATCHES_MAX);
    const coverage = await checkAllRecords(
      { db, journal, sources, lookbackMs },
      await this.scopes(scope),
      {
        scope,
        passDigests,
        onProgress: options.onProgress,
        ...(this.options.onFullCompared ? { onCompared: this.options.onFullCompared } : {}),
        ...(this.options.pace ? { pace: this.options.pace } : {}),
      },
      mismatches,
    );
    const treasury = this.options.treasury;
    const found =
      treasury && !mismatches.full
        ? await treasury.check(scope, {
            mode: 'full',
            limit: MISMATCHES_MAX,
            timeoutMs: options.treasuryTimeoutMs,
            ...(await this.othersDigests(passDigests)),
          })
        : undefined;
    return this.withTreasury(mismatches, coverage, found);
  }

  /** The digests of record types other than payments' own: treasury's; none when the ledger gave none. */
  private async othersDigests(passDigests: PassDigests): Promise<{ ledgerDigests?: RecordDigests }> {
    const own = new Set(this.options.sources.map((source) => source.referenceType));
    const all = await passDigests();
    return all
      ? { ledgerDigests: { throughSeq: all.throughSeq, digests: all.digests.filter((each) => !own.has(each.referenceType)) } }
      : {};
  }

  private async scopes(scope: ReconciliationScope | null): Promise<ReconciliationScope[]> {
    return scope ? [scope] : scopesWithRecords(this.options.db, [...this.options.sources.map((source) => source.table), 'wallets']);
  }

  private withTreasury(mismatches: MismatchList, coverage: RecordsCoverage[], found: BusinessRecordsCheck | undefined): RecordsFound {
    if (found) {
      for (const mismatch of found.mismatches) mismatches.add(mismatch);
      coverage.push(...found.coverage);
    }
    return { mismatches: mismatches.items, coverage };
  }

  /** Check 4: statement lines no deposit used, and slips pending longer than the configured age. */
  async bankEvidence(scope: ReconciliationScope | null, checkedAt: Date): Promise<Mismatch[]> {
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

function ledgerChecks(result: ReconciliationResult): Record<'balances' | 'entries_balance', Mismatch[]> {
  const byName = new Map(result.checks.map((check) => [LEDGER_CHECK_NAMES[check.name], check.mismatches]));
  const balances = byName.get('balances');
  const entriesBalance = byName.get('entries_balance');
  if (!balances || !entriesBalance || byName.size !== 2)
    throw new Error(`the ledger answered checks ${result.checks.map((check) => check.name).join(', ')}, not its two`);
  return { balances, entries_balance: entriesBalance };
}
