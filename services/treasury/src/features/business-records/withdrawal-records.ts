import type { BusinessRecordSource, ExpectedPosting } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import { WITHDRAWAL_REFERENCE_TYPE, withdrawalPostCommand, type WithdrawalStep } from '../withdrawals/withdrawal-posting';
import { postedWithdrawalsPage, type StoredWithdrawal, withdrawalsByIds } from '../withdrawals/withdrawals-store';

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
export function withdrawalRecords(db: Db): BusinessRecordSource {
  return {
    referenceType: WITHDRAWAL_REFERENCE_TYPE,
    async finishedPage(scope, page) {
      if (page.cursor !== null && !/^\d{1,19}$/.test(page.cursor)) throw new Error(`withdrawal cursor ${page.cursor} is not a position`);
      const rows = await postedWithdrawalsPage(db, scope, { beforeSeq: page.cursor, limit: page.limit });
      return {
        records: rows.map((withdrawal) => ({ id: withdrawal.id, tenantId: withdrawal.tenantId, environment: withdrawal.environment, postings: expectedPostings(withdrawal) })),
        cursor: rows.length === page.limit ? (rows[rows.length - 1]?.seq ?? null) : null,
      };
    },
    async byIds(scope, ids) {
      return (await withdrawalsByIds(db, scope, ids)).map((withdrawal) => ({
        id: withdrawal.id,
        tenantId: withdrawal.tenantId,
        environment: withdrawal.environment,
        status: withdrawal.status,
        // Every case whose hold posted has moved money, whatever step it is at.
        finished: withdrawal.holdEntryId !== null,
        journalEntryIds: [withdrawal.holdEntryId, withdrawal.decisionEntryId].filter((id): id is string => id !== null),
      }));
    },
  };
}
