import { caseRecordSource, deliveredCaseOpen, deliveredCaseSteps } from '@wallet/money-commands';
import { withdrawalPostCommand, type WithdrawalStep } from './withdrawal-posting';
import { type StoredWithdrawal, WITHDRAWAL, withdrawalsByIds } from './withdrawals-store';

/**
 * Withdrawal cases for reconciliation, step by step, as payout cases are in payments: the
 * maker-checker steps, then the rail's outcome (complete or fail); one still pending or approved posts again.
 */
export const withdrawalRecords = caseRecordSource<StoredWithdrawal, WithdrawalStep>({
  referenceType: WITHDRAWAL.referenceType,
  table: WITHDRAWAL.table,
  byIds: (db, ids) => withdrawalsByIds(db, null, ids),
  steps: deliveredCaseSteps,
  command: withdrawalPostCommand,
  open: deliveredCaseOpen,
});
