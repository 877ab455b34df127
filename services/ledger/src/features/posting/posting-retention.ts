import { daysMs, type RetentionRule } from '@wallet/kit';

/**
 * A command's recorded result is the ledger's duplicate memory: within `retentionDays` a
 * redelivered or repeated command gets its original result and posts nothing. Past it, a
 * posting command that had posted still cannot post again (journal_entries.command_id is UNIQUE,
 * and the consumer answers it from that entry); a command that had been rejected, or a wallet
 * status change, is decided again as new, so the window must outlast any redelivery.
 */
export function processedCommandsRetentionRule(retentionDays: number): RetentionRule {
  return {
    table: 'processed_commands',
    column: 'created_at',
    windowMs: daysMs(retentionDays),
    index: { kind: 'brin', name: 'processed_commands_created_at_brin' },
  };
}
