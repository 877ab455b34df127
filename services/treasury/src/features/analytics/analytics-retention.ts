import { daysMs, type RetentionRule } from '@wallet/kit';
import { z } from 'zod';

export const analyticsRetentionConfigShape = {
  /** How long an applied entry's id is kept in analytics_entries (the read models' duplicate memory). */
  TREASURY_ANALYTICS_ENTRY_RETENTION_DAYS: z.coerce.number().int().min(7).max(3650).default(30),
};

/**
 * analytics_entries are the read models' inputs: each row only says an entry was counted, so a
 * redelivered event counts nothing twice. Past the window they go; the sums (analytics_daily,
 * analytics_account_classes, analytics_cases) stay. Found along the existing posted_at index;
 * an entry also waits the window after it was applied, so one counted late (a backlog) keeps
 * its claim as long as any other.
 */
export function analyticsEntriesRetentionRule(retentionDays: number): RetentionRule {
  if (!Number.isInteger(retentionDays)) throw new Error(`retentionDays must be an integer, got ${retentionDays}`);
  return {
    table: 'analytics_entries',
    column: 'posted_at',
    windowMs: daysMs(retentionDays),
    index: { kind: 'btree' },
    andWhere: `applied_at < now() - make_interval(days => ${retentionDays})`,
  };
}
