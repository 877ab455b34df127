import BigNumber from 'bignumber.js';
import {
  ANALYTICS_RANGE_DAYS_DEFAULT,
  ANALYTICS_RANGE_DAYS_MAX,
  type AnalyticsCurrency,
  type AnalyticsFigures,
  analyticsInstant,
  type AnalyticsLiquidity,
  type AnalyticsPending,
  type AnalyticsQuery,
  CASE_TYPE_NAMES,
  CASE_TYPES,
  type CasePendingField,
  type CaseType,
  type Environment,
  formatAmount,
  JOURNAL_KINDS,
  type JournalKind,
  type SystemAnalytics,
  type SystemAnalyticsQuery,
  type TenantAnalytics,
} from '@wallet/contracts';
import { AppError, type Db } from '@wallet/kit';
import { type AccountClass, DEBIT_NORMAL_CLASSES } from './analytics-projection';
import { type AnalyticsRows, type FiguresRow, readAnalytics } from './analytics-store';
import type { RequestErrorsReader } from './request-errors-client';

const DAY_MS = 86_400_000;

export interface AnalyticsRange {
  from: Date;
  to: Date;
}

/**
 * Whole UTC days: `from` rounded down, `to` rounded up, by default the last 30 days with today.
 * A range that is empty once rounded, or longer than the maximum, is a 400.
 */
export function analyticsRange(query: Pick<AnalyticsQuery, 'from' | 'to'>, now: Date): AnalyticsRange {
  const toMs =
    query.to !== undefined ? Math.ceil(analyticsInstant(query.to) / DAY_MS) * DAY_MS : (Math.floor(now.getTime() / DAY_MS) + 1) * DAY_MS;
  const fromMs =
    query.from !== undefined ? Math.floor(analyticsInstant(query.from) / DAY_MS) * DAY_MS : toMs - ANALYTICS_RANGE_DAYS_DEFAULT * DAY_MS;
  if (!(fromMs < toMs))
    throw new AppError('VALIDATION_ERROR', 'from must be before to', { issues: [{ path: 'query.from', message: 'must be before to' }] });
  if (toMs - fromMs > ANALYTICS_RANGE_DAYS_MAX * DAY_MS) {
    throw new AppError('VALIDATION_ERROR', `A range spans ${ANALYTICS_RANGE_DAYS_MAX} days at most`, {
      issues: [{ path: 'query.from', message: `at most ${ANALYTICS_RANGE_DAYS_MAX} days before to` }],
    });
  }
  return { from: new Date(fromMs), to: new Date(toMs) };
}

const LIQUIDITY_FIELDS: Record<AccountClass, keyof AnalyticsLiquidity> = {
  wallets: 'wallets',
  operating_float: 'operatingFloat',
  momo_float: 'momoFloat',
  bank_float: 'bankFloat',
  rail_clearing: 'railClearing',
  suspense: 'suspense',
  payout_clearing: 'payoutClearing',
  fee_revenue: 'feeRevenue',
  platform_commission: 'platformCommission',
};

interface Sums {
  entryCount: number;
  volume: BigNumber;
  feeRevenue: BigNumber;
  platformCommission: BigNumber;
}

const zeroSums = (): Sums => ({
  entryCount: 0,
  volume: new BigNumber(0),
  feeRevenue: new BigNumber(0),
  platformCommission: new BigNumber(0),
});

function addTo(sums: Sums, row: FiguresRow): void {
  sums.entryCount += row.entryCount;
  sums.volume = sums.volume.plus(row.volume);
  sums.feeRevenue = sums.feeRevenue.plus(row.feeRevenue);
  sums.platformCommission = sums.platformCommission.plus(row.platformCommission);
}

function formatSums(sums: Sums, currencyCode: string): AnalyticsFigures {
  return {
    entryCount: sums.entryCount,
    volume: formatAmount(sums.volume, currencyCode),
    feeRevenue: formatAmount(sums.feeRevenue, currencyCode),
    platformCommission: formatAmount(sums.platformCommission, currencyCode),
  };
}

/** Per-currency figures of the rows given (one tenant's, or every tenant's added up). */
export function currenciesOf(rows: AnalyticsRows): AnalyticsCurrency[] {
  const codes = new Set<string>([...rows.byKind, ...rows.byDay, ...rows.classes, ...rows.pending].map((row) => row.currencyCode));
  return [...codes].sort().map((currencyCode) => {
    const totals = zeroSums();
    const byKind = new Map<JournalKind, Sums>();
    for (const row of rows.byKind.filter((item) => item.currencyCode === currencyCode)) {
      const sums = byKind.get(row.kind) ?? zeroSums();
      addTo(sums, row);
      addTo(totals, row);
      byKind.set(row.kind, sums);
    }
    const byDay = new Map<string, Sums>();
    for (const row of rows.byDay.filter((item) => item.currencyCode === currencyCode)) {
      const sums = byDay.get(row.day) ?? zeroSums();
      addTo(sums, row);
      byDay.set(row.day, sums);
    }
    const balances = new Map<keyof AnalyticsLiquidity, BigNumber>();
    for (const row of rows.classes.filter((item) => item.currencyCode === currencyCode)) {
      const field = LIQUIDITY_FIELDS[row.accountClass];
      const balance = DEBIT_NORMAL_CLASSES.has(row.accountClass)
        ? new BigNumber(row.debits).minus(row.credits)
        : new BigNumber(row.credits).minus(row.debits);
      balances.set(field, (balances.get(field) ?? new BigNumber(0)).plus(balance));
    }
    const liquidity = Object.fromEntries(
      Object.values(LIQUIDITY_FIELDS).map((field) => [field, formatAmount(balances.get(field) ?? 0, currencyCode)]),
    ) as AnalyticsLiquidity;
    return {
      currencyCode,
      totals: formatSums(totals, currencyCode),
      byKind: JOURNAL_KINDS.filter((kind) => byKind.has(kind)).map((kind) => ({
        kind,
        ...formatSums(byKind.get(kind) as Sums, currencyCode),
      })),
      daily: [...byDay.keys()].sort().map((date) => ({ date, ...formatSums(byDay.get(date) as Sums, currencyCode) })),
      liquidity,
      ...pendingOf(rows.pending, currencyCode),
    };
  });
}

/** Each case type's pending cases in the currency, in the answer's field for the type. */
function pendingOf(pending: AnalyticsRows['pending'], currencyCode: string): Record<CasePendingField, AnalyticsPending> {
  const ofType = (caseType: CaseType): AnalyticsPending => {
    const matching = pending.filter((item) => item.currencyCode === currencyCode && item.caseType === caseType);
    return {
      count: matching.reduce((sum, item) => sum + item.count, 0),
      amount: formatAmount(
        matching.reduce((sum, item) => sum.plus(item.amount), new BigNumber(0)),
        currencyCode,
      ),
    };
  };
  return Object.fromEntries(CASE_TYPE_NAMES.map((caseType) => [CASE_TYPES[caseType].pending, ofType(caseType)])) as Record<
    CasePendingField,
    AnalyticsPending
  >;
}

function onlyTenant(rows: AnalyticsRows, tenantId: string): AnalyticsRows {
  const mine = <Row extends { tenantId: string }>(list: Row[]): Row[] => list.filter((row) => row.tenantId === tenantId);
  return {
    byKind: mine(rows.byKind),
    byDay: mine(rows.byDay),
    classes: mine(rows.classes),
    pending: mine(rows.pending),
    lastEntryAt: rows.lastEntryAt,
  };
}

/** Reads the read models (never the journal) and the gateway's request-log summary. */
export class AnalyticsService {
  constructor(
    private readonly db: Db,
    private readonly requestErrors: RequestErrorsReader,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async tenant(scope: { tenantId: string; environment: Environment }, query: AnalyticsQuery): Promise<TenantAnalytics> {
    const range = analyticsRange(query, this.now());
    const [rows, requestErrors] = await Promise.all([
      readAnalytics(this.db, { ...scope, currencyCode: query.currencyCode }, dayRange(range)),
      this.requestErrors.summary({ ...scope, ...range }),
    ]);
    return { ...scope, ...rangeFields(range, rows), currencies: currenciesOf(rows), requestErrors };
  }

  async system(query: SystemAnalyticsQuery): Promise<SystemAnalytics> {
    const environment = query.environment ?? 'live';
    const range = analyticsRange(query, this.now());
    const [rows, requestErrors] = await Promise.all([
      readAnalytics(this.db, { environment, currencyCode: query.currencyCode }, dayRange(range)),
      this.requestErrors.summary({ environment, ...range }),
    ]);
    const tenantIds = [...new Set([...rows.byKind, ...rows.classes, ...rows.pending].map((row) => row.tenantId))].sort();
    return {
      environment,
      ...rangeFields(range, rows),
      currencies: currenciesOf(rows),
      tenants: tenantIds.map((tenantId) => ({ tenantId, currencies: currenciesOf(onlyTenant(rows, tenantId)) })),
      requestErrors,
    };
  }
}

function dayRange(range: AnalyticsRange): { fromDay: string; toDay: string } {
  return { fromDay: range.from.toISOString().slice(0, 10), toDay: range.to.toISOString().slice(0, 10) };
}

function rangeFields(range: AnalyticsRange, rows: AnalyticsRows): { from: string; to: string; lastEntryAt: string | null } {
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    lastEntryAt: rows.lastEntryAt ? rows.lastEntryAt.toISOString() : null,
  };
}
