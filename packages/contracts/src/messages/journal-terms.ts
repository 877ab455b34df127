import { z } from 'zod';

/**
 * The words of the books that the chart of accounts and the ledger's commands both use: a module
 * of its own, so the chart (which names the kinds allowed on an account) and the commands (which
 * name accounts by the chart) do not import each other.
 */
export const JOURNAL_KINDS = [
  'momo_deposit',
  'bank_deposit',
  'transfer',
  'transfer_reversal',
  'payout_hold',
  'payout_settle',
  'payout_release',
  'payout_complete',
  'payout_fail',
  'tenant_float_deposit',
  'withdrawal_hold',
  'withdrawal_settle',
  'withdrawal_release',
  'withdrawal_complete',
  'withdrawal_fail',
  'adjustment',
] as const;
export const journalKindSchema = z.enum(JOURNAL_KINDS);
export type JournalKind = z.infer<typeof journalKindSchema>;

export const directionSchema = z.enum(['DR', 'CR']);
export type Direction = z.infer<typeof directionSchema>;
