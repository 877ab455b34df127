import type { Environment } from '@wallet/contracts';

/**
 * journal_entries_scope_seq is keyed by this hash of an entry's tenant and environment (4 bytes
 * where the two columns take 35), then seq: a query names it to range-scan one scope's entries in
 * seq order. The columns are still compared, so two scopes sharing a hash only cost rows read.
 */
export function scopeKeySql(alias: string): string {
  return `hashtext(${alias}.tenant_id || '/' || ${alias}.environment)`;
}

/** One scope's entries, as a condition on journal_entries_scope_seq's key and the columns themselves, with its bindings. */
export function entriesOfScopeSql(alias: string, scope: TenantScope): { sql: string; bindings: string[] } {
  return {
    sql: `${scopeKeySql(alias)} = hashtext(?::text || '/' || ?::text) AND ${alias}.tenant_id = ? AND ${alias}.environment = ?`,
    bindings: [scope.tenantId, scope.environment, scope.tenantId, scope.environment],
  };
}

/** The highest seq there can be: the open end of a scope's range. */
const MAX_SEQ = '9223372036854775807::bigint';

/**
 * The entries of the scope whose key is `scopeKey` (an SQL expression) with a seq in
 * (afterSeq, throughSeq], as a range of journal_entries_scope_seq bounded at both ends by row
 * comparisons, which only that index can serve. Not `key = X` beside them: PostgreSQL then starts
 * the scan at the scope's first entry (the equality is the start it takes for the column) and reads
 * every entry before the mark, 20,000 pages of a 5-million-entry scope. Not `seq > x` either: the
 * planner of a lateral join (x unknown when it plans) took the primary key's range and filtered the
 * whole journal after x. The key is the same all along the range: ordered by scopeOrderSql, it is
 * read in the index's order, without a sort.
 */
export function scopeSeqRangeSql(alias: string, scopeKey: string, afterSeq: string, throughSeq = MAX_SEQ): string {
  const key = scopeKeySql(alias);
  return `(${key}, ${alias}.seq) > (${scopeKey}, ${afterSeq}) AND (${key}, ${alias}.seq) <= (${scopeKey}, ${throughSeq})`;
}

/** The order of journal_entries_scope_seq: within one scope's range, seq order. */
export function scopeOrderSql(alias: string): string {
  return `${scopeKeySql(alias)}, ${alias}.seq`;
}

/** One scope's entries with a seq in (afterSeq, throughSeq], as a range of journal_entries_scope_seq (see scopeSeqRangeSql), with its bindings. */
export function entriesOfScopeBetweenSql(
  alias: string,
  scope: TenantScope,
  afterSeq: string,
  throughSeq: string,
): { sql: string; bindings: string[] } {
  const scopeKey = `hashtext(?::text || '/' || ?::text)`;
  return {
    sql: `${scopeSeqRangeSql(alias, scopeKey, '?::bigint', '?::bigint')} AND ${alias}.tenant_id = ? AND ${alias}.environment = ?`,
    bindings: [
      scope.tenantId,
      scope.environment,
      afterSeq,
      scope.tenantId,
      scope.environment,
      throughSeq,
      scope.tenantId,
      scope.environment,
    ],
  };
}

/** Every read of tenant data is bounded by one tenant and one environment. */
export interface TenantScope {
  tenantId: string;
  environment: Environment;
}
