import { formatAmount, type ReconciliationResult } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import type { TenantScope } from '../journal/journal-store';

const MISMATCHES_MAX = 100;
const AMOUNT_FIELDS = ['materializedBalance', 'sumOfLines', 'debits', 'credits'];

/** Amounts in mismatch reports are written at their currency's scale, like everywhere else. */
function formatAmounts(row: Record<string, unknown>): Record<string, unknown> {
  const currencyCode = row.currencyCode as string;
  const formatted = { ...row };
  for (const field of AMOUNT_FIELDS) {
    if (field in formatted) formatted[field] = formatAmount((formatted[field] as string | null) ?? '0', currencyCode);
  }
  return formatted;
}

function scopeClause(alias: string, scope: TenantScope | null): { sql: string; bindings: string[] } {
  return scope ? { sql: `${alias}.tenant_id = ? AND ${alias}.environment = ?`, bindings: [scope.tenantId, scope.environment] } : { sql: 'TRUE', bindings: [] };
}

/** Check 1: every account's materialized balance equals the sum of its lines. */
async function balancesMatchLines(db: Db, scope: TenantScope | null): Promise<Array<Record<string, unknown>>> {
  const where = scopeClause('a', scope);
  const result = await db.raw(
    `SELECT a.id AS "accountId", a.tenant_id AS "tenantId", a.environment, a.name AS "accountName", a.currency_code AS "currencyCode",
            a.balance::text AS "materializedBalance", s.computed::text AS "sumOfLines"
       FROM accounts a
       CROSS JOIN LATERAL (
         SELECT COALESCE(SUM(CASE WHEN l.direction = a.normal_side THEN l.amount ELSE -l.amount END), 0) AS computed
           FROM journal_lines l WHERE l.account_id = a.id
       ) s
      WHERE ${where.sql} AND a.balance <> s.computed
      LIMIT ${MISMATCHES_MAX}`,
    where.bindings,
  );
  return result.rows as Array<Record<string, unknown>>;
}

/** Check 2: every entry balances per currency, and so do all debits and credits per tenant, environment, currency. */
async function entriesBalance(db: Db, scope: TenantScope | null): Promise<Array<Record<string, unknown>>> {
  const where = scopeClause('e', scope);
  const entries = await db.raw(
    `SELECT e.id AS "journalEntryId", e.tenant_id AS "tenantId", e.environment, l.currency_code AS "currencyCode",
            SUM(l.amount) FILTER (WHERE l.direction = 'DR')::text AS debits, SUM(l.amount) FILTER (WHERE l.direction = 'CR')::text AS credits
       FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
      WHERE ${where.sql}
      GROUP BY e.id, e.tenant_id, e.environment, l.currency_code
     HAVING COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'DR'), 0) <> COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'CR'), 0)
      LIMIT ${MISMATCHES_MAX}`,
    where.bindings,
  );
  const totals = await db.raw(
    `SELECT e.tenant_id AS "tenantId", e.environment, l.currency_code AS "currencyCode",
            SUM(l.amount) FILTER (WHERE l.direction = 'DR')::text AS debits, SUM(l.amount) FILTER (WHERE l.direction = 'CR')::text AS credits
       FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
      WHERE ${where.sql}
      GROUP BY e.tenant_id, e.environment, l.currency_code
     HAVING COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'DR'), 0) <> COALESCE(SUM(l.amount) FILTER (WHERE l.direction = 'CR'), 0)
      LIMIT ${MISMATCHES_MAX}`,
    where.bindings,
  );
  const orphans = await db.raw(
    `SELECT l.entry_id AS "journalEntryId", l.line_no AS "lineNo", l.account_id AS "accountId", l.currency_code AS "currencyCode",
            CASE WHEN e.id IS NULL THEN 'line without entry' ELSE 'line without account' END AS problem
       FROM journal_lines l
       LEFT JOIN journal_entries e ON e.id = l.entry_id
       LEFT JOIN accounts a ON a.id = l.account_id
      WHERE (e.id IS NULL OR a.id IS NULL)
        AND ${scope ? '((e.tenant_id = ? AND e.environment = ?) OR (a.tenant_id = ? AND a.environment = ?))' : 'TRUE'}
      LIMIT ${MISMATCHES_MAX}`,
    scope ? [scope.tenantId, scope.environment, scope.tenantId, scope.environment] : [],
  );
  return [
    ...(entries.rows as Array<Record<string, unknown>>),
    ...(totals.rows as Array<Record<string, unknown>>).map((row) => ({ ...row, scope: 'totals' })),
    ...(orphans.rows as Array<Record<string, unknown>>),
  ];
}

/** Reconciliation checks 1 and 2 of api-decisions section 9; the other two belong to payments. */
export async function reconcileLedger(db: Db, scope: TenantScope | null, now: Date = new Date()): Promise<ReconciliationResult> {
  // One snapshot for both checks, so a posting committing in between cannot show as a mismatch.
  return db.transaction(
    async (tx) => {
      const checks = [
        { name: 'account_balances_match_lines', mismatches: await balancesMatchLines(tx, scope) },
        { name: 'entries_balance', mismatches: await entriesBalance(tx, scope) },
      ].map((check) => ({ ...check, mismatches: check.mismatches.map(formatAmounts), status: check.mismatches.length === 0 ? ('ok' as const) : ('mismatch' as const) }));
      return { status: checks.every((check) => check.status === 'ok') ? 'ok' : 'mismatch', checks, checkedAt: now.toISOString() };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}
