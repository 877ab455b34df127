import { daysMs, type RetentionRule } from '@wallet/kit';
import { z } from 'zod';

export const reconciliationRunsRetentionConfigShape = {
  /** How long a scheduled reconciliation run's record is kept. */
  PAYMENTS_RECONCILIATION_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
};

/**
 * Scheduled runs older than the window, along reconciliation_runs_round. The newest run and the
 * newest completed one stay whatever their age: the status route shows them.
 */
export function reconciliationRunsRetentionRule(retentionDays: number): RetentionRule {
  return {
    table: 'reconciliation_runs',
    column: 'round_at',
    windowMs: daysMs(retentionDays),
    index: { kind: 'btree' },
    andWhere: `id IS DISTINCT FROM (SELECT max(r.id) FROM reconciliation_runs r)
      AND id IS DISTINCT FROM (SELECT r.id FROM reconciliation_runs r WHERE r.status <> 'error' ORDER BY r.id DESC LIMIT 1)`,
  };
}
