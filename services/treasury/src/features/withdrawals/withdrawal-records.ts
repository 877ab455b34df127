import { caseRecordSource, makerCheckerSteps } from '@wallet/money-commands';
import { WITHDRAWAL_REFERENCE_TYPE, withdrawalPostCommand, type WithdrawalStep } from './withdrawal-posting';
import { type StoredWithdrawal, withdrawalsByIds } from './withdrawals-store';

/** Withdrawal cases for reconciliation, step by step, as payout cases are in payments; one still pending posts again. */
export const withdrawalRecords = caseRecordSource<StoredWithdrawal, WithdrawalStep>({
  referenceType: WITHDRAWAL_REFERENCE_TYPE,
  table: 'withdrawals',
  byIds: (db, ids) => withdrawalsByIds(db, null, ids),
  steps: (withdrawal) => makerCheckerSteps(withdrawal, ['approved']),
  command: withdrawalPostCommand,
  open: (withdrawal) => withdrawal.status === 'pending',
});
