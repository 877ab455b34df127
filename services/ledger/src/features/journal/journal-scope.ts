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

/**
 * The entries of the scope whose key is `scopeKey` (an SQL expression) after `afterSeq`, as a
 * range of journal_entries_scope_seq. Written as a row comparison, which only that index can
 * serve: given `seq > x`, the planner of a lateral join (x unknown when it plans) took the
 * primary key's range instead and filtered the whole journal after x for one scope's rows.
 */
export function scopeSeqAfterSql(alias: string, scopeKey: string, afterSeq: string): string {
  return `${scopeKeySql(alias)} = ${scopeKey} AND (${scopeKeySql(alias)}, ${alias}.seq) > (${scopeKey}, ${afterSeq})`;
}

/** One scope's entries with a seq in (afterSeq, throughSeq], as a range of journal_entries_scope_seq (see scopeSeqAfterSql), with its bindings. */
export function entriesOfScopeBetweenSql(alias: string, scope: TenantScope, afterSeq: string, throughSeq: string): { sql: string; bindings: string[] } {
  const scopeKey = `hashtext(?::text || '/' || ?::text)`;
  return {
    sql: `${scopeSeqAfterSql(alias, scopeKey, '?::bigint')} AND (${scopeKeySql(alias)}, ${alias}.seq) <= (${scopeKey}, ?::bigint) AND ${alias}.tenant_id = ? AND ${alias}.environment = ?`,
    bindings: [scope.tenantId, scope.environment, scope.tenantId, scope.environment, afterSeq, scope.tenantId, scope.environment, throughSeq, scope.tenantId, scope.environment],
  };
}

/** Every read of tenant data is bounded by one tenant and one environment. */
export interface TenantScope {
  tenantId: string;
  environment: Environment;
}
