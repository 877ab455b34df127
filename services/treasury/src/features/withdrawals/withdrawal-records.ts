import type { ExpectedPosting } from '@wallet/contracts';
import type { LocalRecordSource } from '@wallet/kit';
import { WITHDRAWAL_REFERENCE_TYPE, withdrawalPostCommand, type WithdrawalStep } from './withdrawal-posting';
import { type StoredWithdrawal, withdrawalsByIds } from './withdrawals-store';

/** The steps a case has taken, in order: its hold once posted, then its decision (settle when approved, release when rejected). */
function withdrawalSteps(withdrawal: StoredWithdrawal): Array<{ step: WithdrawalStep; journalEntryId: string | null }> {
  const steps: Array<{ step: WithdrawalStep; journalEntryId: string | null }> = [{ step: 'hold', journalEntryId: withdrawal.holdEntryId }];
  if (withdrawal.status === 'approved') steps.push({ step: 'settle', journalEntryId: withdrawal.decisionEntryId });
  if (withdrawal.status === 'rejected') steps.push({ step: 'release', journalEntryId: withdrawal.decisionEntryId });
  return steps;
}

function expectedPostings(withdrawal: StoredWithdrawal): ExpectedPosting[] {
  return withdrawalSteps(withdrawal).map(({ step, journalEntryId }) => {
    const command = withdrawalPostCommand(withdrawal, step);
    return { journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines };
  });
}

/** Withdrawal cases for reconciliation, step by step, as payout cases are in payments. */
export const withdrawalRecords: LocalRecordSource = {
  referenceType: WITHDRAWAL_REFERENCE_TYPE,
  table: 'withdrawals',
  async byIds(db, ids) {
    return (await withdrawalsByIds(db, null, ids)).map((withdrawal) => ({
      id: withdrawal.id,
      seq: withdrawal.seq,
      tenantId: withdrawal.tenantId,
      environment: withdrawal.environment,
      status: withdrawal.status,
      createdAt: withdrawal.createdAt,
      // Every case whose hold posted has moved money, whatever step it is at.
      finished: withdrawal.holdEntryId !== null,
      open: withdrawal.status === 'pending',
      journalEntryIds: [withdrawal.holdEntryId, withdrawal.decisionEntryId].filter((id): id is string => id !== null),
      postings: withdrawal.holdEntryId !== null ? expectedPostings(withdrawal) : [],
    }));
  },
};
