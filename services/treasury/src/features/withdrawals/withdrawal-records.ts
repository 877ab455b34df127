import { caseRecordSource, makerCheckerSteps } from '@wallet/money-commands';
import { withdrawalPostCommand, type WithdrawalStep } from './withdrawal-posting';
import { type StoredWithdrawal, WITHDRAWAL, withdrawalsByIds } from './withdrawals-store';

/** Withdrawal cases for reconciliation, step by step, as payout cases are in payments; one still pending posts again. */
export const withdrawalRecords = caseRecordSource<StoredWithdrawal, WithdrawalStep>({
  referenceType: WITHDRAWAL.referenceType,
  table: WITHDRAWAL.table,
  byIds: (db, ids) => withdrawalsByIds(db, null, ids),
  steps: (withdrawal) => makerCheckerSteps(withdrawal, ['approved']),
  command: withdrawalPostCommand,
  open: (withdrawal) => withdrawal.status === 'pending',
});
