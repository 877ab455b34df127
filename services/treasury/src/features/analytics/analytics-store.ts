import { CASE_TYPE_NAMES, type CaseType, type Environment, type JournalKind, type PostedEntry } from '@wallet/contracts';
import { type Db, prepared, type Tx } from '@wallet/kit';
import type { Knex } from 'knex';
import { type AccountClass, type CaseDelta, type ClassDelta, type DailyDelta, projectEntries } from './analytics-projection';

function arrays(values: readonly unknown[]): Knex.RawBinding {
  return values as unknown as Knex.RawBinding;
}

/** Sorted by row key, so two instances applying overlapping batches lock rows in one order and never deadlock. */
function byKey<Row>(rows: Row[], key: (row: Row) => string): Row[] {
  return rows
    .map((row) => ({ row, key: key(row) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((item) => item.row);
}

/** Claims the entries not applied yet; only the claimed ones may be counted (same transaction). */
async function claimEntries(tx: Tx, entries: readonly PostedEntry[]): Promise<Set<string>> {
  const result = await prepared<{ rows: Array<{ journal_entry_id: string }> }>(
    tx,
    `INSERT INTO analytics_entries (journal_entry_id, tenant_id, environment, kind, posted_at)
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])
     ON CONFLICT (journal_entry_id) DO NOTHING
     RETURNING journal_entry_id`,
    [
      arrays(entries.map((entry) => entry.journalEntryId)),
      arrays(entries.map((entry) => entry.tenantId)),
      arrays(entries.map((entry) => entry.environment)),
      arrays(entries.map((entry) => entry.kind)),
      arrays(entries.map((entry) => entry.createdAt)),
    ],
  );
  return new Set(result.rows.map((row) => row.journal_entry_id));
}

async function addDaily(tx: Tx, deltas: DailyDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = byKey(deltas, (row) => [row.tenantId, row.environment, row.currencyCode, row.day, row.kind].join('|'));
  await prepared(
    tx,
    `INSERT INTO analytics_daily AS d (tenant_id, environment, currency_code, day, kind, entry_count, volume, fee_revenue, platform_commission)
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::date[], ?::text[], ?::bigint[], ?::numeric[], ?::numeric[], ?::numeric[])
     ON CONFLICT (tenant_id, environment, currency_code, day, kind) DO UPDATE SET
       entry_count = d.entry_count + EXCLUDED.entry_count,
       volume = d.volume + EXCLUDED.volume,
       fee_revenue = d.fee_revenue + EXCLUDED.fee_revenue,
       platform_commission = d.platform_commission + EXCLUDED.platform_commission`,
    [
      arrays(rows.map((row) => row.tenantId)),
      arrays(rows.map((row) => row.environment)),
      arrays(rows.map((row) => row.currencyCode)),
      arrays(rows.map((row) => row.day)),
      arrays(rows.map((row) => row.kind)),
      arrays(rows.map((row) => row.entryCount)),
      arrays(rows.map((row) => row.volume.toFixed())),
      arrays(rows.map((row) => row.feeRevenue.toFixed())),
      arrays(rows.map((row) => row.platformCommission.toFixed())),
    ],
  );
}

async function addClasses(tx: Tx, deltas: ClassDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = byKey(deltas, (row) => [row.tenantId, row.environment, row.currencyCode, row.accountClass].join('|'));
  await prepared(
    tx,
    `INSERT INTO analytics_account_classes AS c (tenant_id, environment, currency_code, account_class, debits, credits)
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[])
     ON CONFLICT (tenant_id, environment, currency_code, account_class) DO UPDATE SET
       debits = c.debits + EXCLUDED.debits,
       credits = c.credits + EXCLUDED.credits`,
    [
      arrays(rows.map((row) => row.tenantId)),
      arrays(rows.map((row) => row.environment)),
      arrays(rows.map((row) => row.currencyCode)),
      arrays(rows.map((row) => row.accountClass)),
      arrays(rows.map((row) => row.debits.toFixed())),
      arrays(rows.map((row) => row.credits.toFixed())),
    ],
  );
}

async function addCases(tx: Tx, deltas: CaseDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = byKey(deltas, (row) => [row.tenantId, row.environment, row.caseType, row.caseId, row.currencyCode].join('|'));
  await prepared(
    tx,
    `INSERT INTO analytics_cases AS c (tenant_id, environment, case_type, case_id, currency_code, held_amount, resolved)
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::boolean[])
     ON CONFLICT (tenant_id, environment, case_type, case_id, currency_code) DO UPDATE SET
       held_amount = c.held_amount + EXCLUDED.held_amount,
       resolved = c.resolved OR EXCLUDED.resolved`,
    [
      arrays(rows.map((row) => row.tenantId)),
      arrays(rows.map((row) => row.environment)),
      arrays(rows.map((row) => row.caseType)),
      arrays(rows.map((row) => row.caseId)),
      arrays(rows.map((row) => row.currencyCode)),
      arrays(rows.map((row) => row.heldAmount.toFixed())),
      arrays(rows.map((row) => row.resolved)),
    ],
  );
}

/**
 * Applies posted entries to every read model in `tx`, each entry at most once however often it
 * is delivered: the claim and the increments commit together or not at all. Returns how many
 * entries were new.
 */
export async function applyEntries(tx: Tx, entries: readonly PostedEntry[]): Promise<number> {
  const unique = [...new Map(entries.map((entry) => [entry.journalEntryId, entry])).values()];
  if (unique.length === 0) return 0;
  const claimed = await claimEntries(tx, unique);
  const fresh = unique.filter((entry) => claimed.has(entry.journalEntryId));
  const projection = projectEntries(fresh);
  await addDaily(tx, projection.daily);
  await addClasses(tx, projection.classes);
  await addCases(tx, projection.cases);
  return fresh.length;
}

/** Whose figures a read covers: one tenant, or every tenant of the environment. */
export interface AnalyticsScope {
  environment: Environment;
  tenantId?: string;
  currencyCode?: string;
}

export interface FiguresRow {
  tenantId: string;
  currencyCode: string;
  entryCount: number;
  volume: string;
  feeRevenue: string;
  platformCommission: string;
}

export interface AnalyticsRows {
  byKind: Array<FiguresRow & { kind: JournalKind }>;
  byDay: Array<FiguresRow & { day: string }>;
  classes: Array<{ tenantId: string; currencyCode: string; accountClass: AccountClass; debits: string; credits: string }>;
  pending: Array<{ tenantId: string; currencyCode: string; caseType: CaseType; count: number; amount: string }>;
  lastEntryAt: Date | null;
}

interface DbFiguresRow {
  tenant_id: string;
  currency_code: string;
  entry_count: string;
  volume: string;
  fee_revenue: string;
  platform_commission: string;
}

function figures(row: DbFiguresRow): FiguresRow {
  return {
    tenantId: row.tenant_id,
    currencyCode: row.currency_code,
    entryCount: Number(row.entry_count),
    volume: row.volume,
    feeRevenue: row.fee_revenue,
    platformCommission: row.platform_commission,
  };
}

const SUMS =
  'sum(entry_count)::bigint AS entry_count, sum(volume) AS volume, sum(fee_revenue) AS fee_revenue, sum(platform_commission) AS platform_commission';

/** The scope's filter as SQL: a null tenant or currency binding matches all of them. */
const SCOPE_FILTER = 'environment = ? AND (?::text IS NULL OR tenant_id = ?) AND (?::text IS NULL OR currency_code = ?)';

function scopeBindings(scope: AnalyticsScope): Knex.RawBinding[] {
  const tenantId = scope.tenantId ?? null;
  const currencyCode = scope.currencyCode ?? null;
  return [scope.environment, tenantId, tenantId, currencyCode, currencyCode];
}

/**
 * The read models' rows for a scope; the money figures over the UTC days [fromDay, toDay). All
 * read from one snapshot: read apart, a projection committing in between could show an entry in
 * the counts and not yet in the balances.
 */
export async function readAnalytics(db: Db, scope: AnalyticsScope, range: { fromDay: string; toDay: string }): Promise<AnalyticsRows> {
  return db.transaction(async (tx) => {
    await tx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return readAnalyticsIn(tx, scope, range);
  });
}

async function readAnalyticsIn(db: Tx, scope: AnalyticsScope, range: { fromDay: string; toDay: string }): Promise<AnalyticsRows> {
  const scoped = scopeBindings(scope);
  const inRange = [...scoped, range.fromDay, range.toDay];
  // One after another: a transaction's connection runs one statement at a time (pg refuses a second one given meanwhile).
  const byKind = await prepared<{ rows: Array<DbFiguresRow & { kind: JournalKind }> }>(
    db,
    `SELECT tenant_id, currency_code, kind, ${SUMS} FROM analytics_daily
      WHERE ${SCOPE_FILTER} AND day >= ?::date AND day < ?::date
      GROUP BY tenant_id, currency_code, kind ORDER BY tenant_id, currency_code, kind`,
    inRange,
  );
  const byDay = await prepared<{ rows: Array<DbFiguresRow & { day: string }> }>(
    db,
    `SELECT tenant_id, currency_code, to_char(day, 'YYYY-MM-DD') AS day, ${SUMS} FROM analytics_daily
      WHERE ${SCOPE_FILTER} AND day >= ?::date AND day < ?::date
      GROUP BY tenant_id, currency_code, day ORDER BY tenant_id, currency_code, day`,
    inRange,
  );
  const classes = await prepared<{
    rows: Array<{ tenant_id: string; currency_code: string; account_class: AccountClass; debits: string; credits: string }>;
  }>(db, `SELECT tenant_id, currency_code, account_class, debits, credits FROM analytics_account_classes WHERE ${SCOPE_FILTER}`, scoped);
  const pending = await prepared<{
    rows: Array<{ tenant_id: string; currency_code: string; case_type: CaseType; count: string; amount: string }>;
  }>(
    db,
    `SELECT tenant_id, currency_code, case_type, count(*) AS count, sum(held_amount) AS amount FROM analytics_cases
      WHERE ${SCOPE_FILTER} AND NOT resolved AND held_amount > 0 AND case_type = ANY(?::text[])
      GROUP BY tenant_id, currency_code, case_type`,
    // Only the declared case types: a row of a type no longer declared has no field to be shown in.
    [...scoped, arrays(CASE_TYPE_NAMES)],
  );
  const last = await prepared<{ rows: Array<{ last: Date | null }> }>(
    db,
    scope.tenantId === undefined
      ? 'SELECT max(posted_at) AS last FROM analytics_entries WHERE environment = ?'
      : 'SELECT max(posted_at) AS last FROM analytics_entries WHERE tenant_id = ? AND environment = ?',
    scope.tenantId === undefined ? [scope.environment] : [scope.tenantId, scope.environment],
  );
  return {
    byKind: byKind.rows.map((row) => ({ ...figures(row), kind: row.kind })),
    byDay: byDay.rows.map((row) => ({ ...figures(row), day: row.day })),
    classes: classes.rows.map((row) => ({
      tenantId: row.tenant_id,
      currencyCode: row.currency_code,
      accountClass: row.account_class,
      debits: row.debits,
      credits: row.credits,
    })),
    pending: pending.rows.map((row) => ({
      tenantId: row.tenant_id,
      currencyCode: row.currency_code,
      caseType: row.case_type,
      count: Number(row.count),
      amount: row.amount,
    })),
    lastEntryAt: last.rows[0]?.last ?? null,
  };
}
