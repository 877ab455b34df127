import { daysMs, type RetentionRule } from '@wallet/kit';

/**
 * A session's row past its expiry can no longer sign anyone in (the lookup checks expiry); it is
 * kept `retentionDays` more for questions about a login, then found along sessions_expires_at.
 */
export function sessionsRetentionRule(retentionDays: number): RetentionRule {
  return { table: 'sessions', column: 'expires_at', windowMs: daysMs(retentionDays), index: { kind: 'btree' } };
}
