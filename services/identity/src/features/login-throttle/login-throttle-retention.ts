import type { RetentionRule } from '@wallet/kit';

/**
 * A row whose last failure is older than the failure memory would start again from zero at the
 * next attempt, and its lock has ended (a lock is shorter than the memory): it says nothing any
 * more, and goes. Found along login_throttles_last_failure_at.
 */
export function loginThrottlesRetentionRule(failureMemorySeconds: number): RetentionRule {
  return { table: 'login_throttles', column: 'last_failure_at', windowMs: failureMemorySeconds * 1000, index: { kind: 'btree' } };
}
