import { daysMs, type RetentionRule } from '@wallet/kit';

/**
 * Request logs older than `retentionDays`, found through request_logs_created_brin: the writer
 * inserts them in time order, a batch every second, so the BRIN ranges stay narrow.
 */
export function requestLogRetentionRule(retentionDays: number, intervalMs: number): RetentionRule {
  return {
    table: 'request_logs',
    column: 'created_at',
    windowMs: daysMs(retentionDays),
    index: { kind: 'brin', name: 'request_logs_created_brin' },
    batchSize: 5_000,
    intervalMs,
  };
}
