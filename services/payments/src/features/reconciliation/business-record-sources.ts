import { ACCOUNTS, type ExpectedPosting } from '@wallet/contracts';
import { type LocalRecordSource, singleEntrySource } from '@wallet/kit';
import { depositPostingCommand } from '../deposits/deposit-posting';
import { depositsAfter, depositsByIds, type ReconciledDeposit } from '../deposits/deposit-records';
import { payoutCasesByIds, type ReconciledPayoutCase } from '../payouts/payout-case-records';
import { PAYOUT_REFERENCE_TYPE, payoutPostCommand, type PayoutStep } from '../payouts/payout-posting';
import { transferPostCommand } from '../transfers/transfer-posting';
import { type ReconciledTransfer, transfersAfter, transfersByIds } from '../transfers/transfer-records';

function transferPosting(transfer: ReconciledTransfer): Omit<ExpectedPosting, 'journalEntryId'> {
  const command = transferPostCommand(transfer, transfer.from, transfer.to);
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

function depositPosting(deposit: ReconciledDeposit): Omit<ExpectedPosting, 'journalEntryId'> {
  const isMomo = deposit.source === 'momo';
  const command = depositPostingCommand({
    depositId: deposit.id,
    kind: isMomo ? 'momo_deposit' : 'bank_deposit',
    floatAccount: isMomo ? ACCOUNTS.momoFloat.nameFor(deposit.providerCode ?? '') : ACCOUNTS.bankFloat.nameFor(deposit.bankCode ?? ''),
    wallet: deposit.wallet,
    amount: deposit.amount,
    charge: { fee: deposit.fee, commission: deposit.commission, scheduleId: null, ruleId: null },
  });
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

export const transferSource = singleEntrySource({
  referenceType: 'transfer',
  table: 'transfers',
  rowsByIds: (db, ids) => transfersByIds(db, null, ids),
  rowsAfter: transfersAfter,
  posting: transferPosting,
});

export const depositSource = singleEntrySource({
  referenceType: 'deposit',
  table: 'deposits',
  rowsByIds: (db, ids) => depositsByIds(db, null, ids),
  rowsAfter: depositsAfter,
  posting: depositPosting,
});

/**
 * The steps a payout case has taken, in order: the hold once posted; the decision (settle when
 * approved, release when rejected); the rail's outcome (complete or fail). A pending case has
 * only its hold; an approved one not yet delivered, its hold and settlement.
 */
function payoutSteps(payout: ReconciledPayoutCase): Array<{ step: PayoutStep; journalEntryId: string | null }> {
  const steps: Array<{ step: PayoutStep; journalEntryId: string | null }> = [{ step: 'hold', journalEntryId: payout.holdEntryId }];
  if (payout.status === 'rejected') steps.push({ step: 'release', journalEntryId: payout.decisionEntryId });
  if (payout.status === 'approved' || payout.status === 'completed' || payout.status === 'failed') steps.push({ step: 'settle', journalEntryId: payout.decisionEntryId });
  if (payout.status === 'completed') steps.push({ step: 'complete', journalEntryId: payout.outcomeEntryId });
  if (payout.status === 'failed') steps.push({ step: 'fail', journalEntryId: payout.outcomeEntryId });
  return steps;
}

function expectedPayoutPostings(payout: ReconciledPayoutCase): ExpectedPosting[] {
  return payoutSteps(payout).map(({ step, journalEntryId }) => {
    const command = payoutPostCommand(payout, step);
    return { journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines };
  });
}

/** Payout cases step by step: every case whose hold posted has moved money; one still pending or approved posts again. */
export const payoutCaseSource: LocalRecordSource = {
  referenceType: PAYOUT_REFERENCE_TYPE,
  table: 'payout_cases',
  async byIds(db, ids) {
    return (await payoutCasesByIds(db, null, ids)).map((row) => ({
      id: row.id,
      seq: row.seq,
      tenantId: row.tenantId,
      environment: row.environment,
      status: row.status,
      createdAt: row.createdAt,
      finished: row.holdEntryId !== null,
      open: row.status === 'pending' || row.status === 'approved',
      journalEntryIds: [row.holdEntryId, row.decisionEntryId, row.outcomeEntryId].filter((id): id is string => id !== null),
      postings: row.holdEntryId !== null ? expectedPayoutPostings(row) : [],
    }));
  },
};
