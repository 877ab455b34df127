import BigNumber from 'bignumber.js';
import {
  accountFamilyOf,
  type AccountFamily,
  ACCOUNTS,
  CASE_TYPE_NAMES,
  CASE_TYPES,
  type CaseType,
  type Environment,
  type JournalKind,
  type PostedEntry,
} from '@wallet/contracts';

/**
 * The pure half of the read models: what a set of posted entries adds to them. Deltas are
 * summed per row key here, so the store writes each row once per batch (one upsert may not
 * touch the same row twice) and a batch of a thousand entries costs a few statements.
 */

export const ACCOUNT_CLASSES = [
  'wallets',
  'operating_float',
  'momo_float',
  'bank_float',
  'rail_clearing',
  'suspense',
  'payout_clearing',
  'fee_revenue',
  'platform_commission',
] as const;
export type AccountClass = (typeof ACCOUNT_CLASSES)[number];

/** Classes whose accounts are assets (debit normal); every other class is credit normal. */
export const DEBIT_NORMAL_CLASSES: ReadonlySet<AccountClass> = new Set(['operating_float', 'momo_float', 'bank_float', 'rail_clearing']);

/** Every family of the chart has a class: a new family does not compile until it gets one. */
const CLASS_OF_FAMILY: Record<AccountFamily, AccountClass> = {
  wallet: 'wallets',
  pool: 'operating_float',
  momoFloat: 'momo_float',
  bankFloat: 'bank_float',
  momoClearing: 'rail_clearing',
  bankClearing: 'rail_clearing',
  cashClearing: 'rail_clearing',
  suspense: 'suspense',
  payoutClearing: 'payout_clearing',
  feeRevenue: 'fee_revenue',
  platformCommission: 'platform_commission',
};

export function accountClassOf(accountName: string): AccountClass {
  const declaration = accountFamilyOf(accountName);
  // The contract's account name pattern admits nothing the chart does not declare.
  if (declaration === undefined) throw new Error(`no analytics class for account ${accountName}`);
  return CLASS_OF_FAMILY[declaration.family];
}

const FEE_ACCOUNTS: ReadonlySet<string> = new Set([ACCOUNTS.feeRevenue.name, ACCOUNTS.platformCommission.name]);

/** Withdrawals move revenue the tenant already earned out of `revenue:fees`: no revenue is earned or lost by them. */
export function earnsFeeRevenue(kind: JournalKind): boolean {
  return !kind.startsWith('withdrawal_');
}

/**
 * The entries that open and decide a case, by kind, for every case type contracts declare: a
 * case is held by its hold and decided by its settle or release. Only these kinds make case
 * rows, so no case type the declarations lack reaches analytics_cases.
 */
interface CaseStep {
  caseType: CaseType;
  step: 'hold' | 'outcome';
}
const CASE_STEPS: ReadonlyMap<JournalKind, CaseStep> = new Map(
  CASE_TYPE_NAMES.flatMap((caseType): Array<[JournalKind, CaseStep]> => {
    const { hold, settle, release } = CASE_TYPES[caseType].kinds;
    return [
      [hold, { caseType, step: 'hold' }],
      [settle, { caseType, step: 'outcome' }],
      [release, { caseType, step: 'outcome' }],
    ];
  }),
);

interface Scope {
  tenantId: string;
  environment: Environment;
  currencyCode: string;
}

export interface DailyDelta extends Scope {
  /** UTC day of the entry's posting, `YYYY-MM-DD`. */
  day: string;
  kind: JournalKind;
  entryCount: number;
  volume: BigNumber;
  feeRevenue: BigNumber;
  platformCommission: BigNumber;
}

export interface ClassDelta extends Scope {
  accountClass: AccountClass;
  debits: BigNumber;
  credits: BigNumber;
}

export interface CaseDelta extends Scope {
  caseType: CaseType;
  caseId: string;
  /** What the hold put in suspense (amount and fee); zero for an outcome. */
  heldAmount: BigNumber;
  resolved: boolean;
}

export interface Projection {
  daily: DailyDelta[];
  classes: ClassDelta[];
  cases: CaseDelta[];
}

const ZERO = new BigNumber(0);

function signedOn(lines: PostedEntry['lines'], accountName: string): BigNumber {
  return lines
    .filter((line) => line.accountName === accountName)
    .reduce((sum, line) => (line.direction === 'CR' ? sum.plus(line.amount) : sum.minus(line.amount)), ZERO);
}

export function projectEntries(entries: readonly PostedEntry[]): Projection {
  const daily = new Map<string, DailyDelta>();
  const classes = new Map<string, ClassDelta>();
  const cases = new Map<string, CaseDelta>();
  for (const entry of entries) {
    const day = entry.createdAt.slice(0, 10);
    const currencies = [...new Set(entry.lines.map((line) => line.currencyCode))];
    for (const currencyCode of currencies) {
      const lines = entry.lines.filter((line) => line.currencyCode === currencyCode);
      const scope = { tenantId: entry.tenantId, environment: entry.environment, currencyCode };
      const dailyKey = [entry.tenantId, entry.environment, currencyCode, day, entry.kind].join('|');
      const row = daily.get(dailyKey) ?? {
        ...scope,
        day,
        kind: entry.kind,
        entryCount: 0,
        volume: ZERO,
        feeRevenue: ZERO,
        platformCommission: ZERO,
      };
      row.entryCount += 1;
      row.volume = lines
        .filter((line) => line.direction === 'DR' && !FEE_ACCOUNTS.has(line.accountName))
        .reduce((sum, line) => sum.plus(line.amount), row.volume);
      if (earnsFeeRevenue(entry.kind)) row.feeRevenue = row.feeRevenue.plus(signedOn(lines, ACCOUNTS.feeRevenue.name));
      row.platformCommission = row.platformCommission.plus(signedOn(lines, ACCOUNTS.platformCommission.name));
      daily.set(dailyKey, row);

      for (const line of lines) {
        const accountClass = accountClassOf(line.accountName);
        const classKey = [entry.tenantId, entry.environment, currencyCode, accountClass].join('|');
        const classRow = classes.get(classKey) ?? { ...scope, accountClass, debits: ZERO, credits: ZERO };
        if (line.direction === 'DR') classRow.debits = classRow.debits.plus(line.amount);
        else classRow.credits = classRow.credits.plus(line.amount);
        classes.set(classKey, classRow);
      }

      const step = CASE_STEPS.get(entry.kind);
      if (step) {
        const caseKey = [entry.tenantId, entry.environment, step.caseType, entry.reference.id, currencyCode].join('|');
        const caseRow = cases.get(caseKey) ?? {
          ...scope,
          caseType: step.caseType,
          caseId: entry.reference.id,
          heldAmount: ZERO,
          resolved: false,
        };
        // What the hold moved through suspense, whichever side: an operating-float withdrawal's
        // hold debits suspense (the pool is an asset), every other hold credits it.
        if (step.step === 'hold')
          caseRow.heldAmount = caseRow.heldAmount.plus(
            lines.filter((line) => line.accountName === ACCOUNTS.suspense.name).reduce((sum, line) => sum.plus(line.amount), ZERO),
          );
        else caseRow.resolved = true;
        cases.set(caseKey, caseRow);
      }
    }
  }
  return { daily: [...daily.values()], classes: [...classes.values()], cases: [...cases.values()] };
}
