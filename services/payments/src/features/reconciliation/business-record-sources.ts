import { ACCOUNTS, type ExpectedPosting } from '@wallet/contracts';
import { type CaseStepTaken, caseRecordSource, makerCheckerSteps, singleEntrySource } from '@wallet/money-commands';
import { depositPostingCommand } from '../deposits/deposit-posting';
import { DEPOSIT, depositsAfter, depositsByIds, type ReconciledDeposit } from '../deposits/deposit-records';
import { payoutCasesByIds, type ReconciledPayoutCase } from '../payouts/payout-case-records';
import { PAYOUT_REFERENCE_TYPE, payoutPostCommand, type PayoutStep } from '../payouts/payout-posting';
import { transferPostCommand } from '../transfers/transfer-posting';
import { reversalPostCommand } from '../transfers/transfer-reversal-posting';
import {
  type ReconciledReversal,
  type ReconciledTransfer,
  reversalsAfter,
  reversalsByIds,
  TRANSFER,
  TRANSFER_REVERSAL,
  transferDigestsAfter,
  transfersAfter,
  transfersByIds,
} from '../transfers/transfer-records';

function transferPosting(transfer: ReconciledTransfer): Omit<ExpectedPosting, 'journalEntryId'> {
  const command = transferPostCommand(transfer, transfer.from, transfer.to);
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

function depositPosting(deposit: ReconciledDeposit): Omit<ExpectedPosting, 'journalEntryId'> {
  const isMomo = deposit.source === 'momo';
  const command = depositPostingCommand({
    depositId: deposit.id,
    source: deposit.source,
    floatAccount: isMomo ? ACCOUNTS.momoFloat.nameFor(deposit.providerCode ?? '') : ACCOUNTS.bankFloat.nameFor(deposit.bankCode ?? ''),
    wallet: deposit.wallet,
    amount: deposit.amount,
    charge: { fee: deposit.fee, commission: deposit.commission, scheduleId: null, ruleId: null },
  });
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

export const transferSource = singleEntrySource({
  referenceType: TRANSFER.type,
  table: TRANSFER.table,
  rowsByIds: (db, ids) => transfersByIds(db, null, ids),
  rowsAfter: transfersAfter,
  posting: transferPosting,
  digestAfter: transferDigestsAfter,
});

function reversalPosting(reversal: ReconciledReversal): Omit<ExpectedPosting, 'journalEntryId'> {
  const command = reversalPostCommand(reversal, { journalEntryId: reversal.transferEntryId ?? '', from: reversal.from, to: reversal.to });
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

export const transferReversalSource = singleEntrySource({
  referenceType: TRANSFER_REVERSAL.type,
  table: TRANSFER_REVERSAL.table,
  rowsByIds: reversalsByIds,
  rowsAfter: reversalsAfter,
  posting: reversalPosting,
});

export const depositSource = singleEntrySource({
  referenceType: DEPOSIT.type,
  table: DEPOSIT.table,
  rowsByIds: (db, ids) => depositsByIds(db, null, ids),
  rowsAfter: depositsAfter,
  posting: depositPosting,
});

/** Payout cases step by step: the maker-checker steps, then the rail's outcome (complete or fail); one still pending or approved posts again. */
export const payoutCaseSource = caseRecordSource({
  referenceType: PAYOUT_REFERENCE_TYPE,
  table: 'payout_cases',
  byIds: (db, ids) => payoutCasesByIds(db, null, ids),
  steps: (payout: ReconciledPayoutCase): Array<CaseStepTaken<PayoutStep>> => [
    ...makerCheckerSteps(payout, ['approved', 'completed', 'failed']),
    ...(payout.status === 'completed' ? [{ step: 'complete' as const, journalEntryId: payout.outcomeEntryId }] : []),
    ...(payout.status === 'failed' ? [{ step: 'fail' as const, journalEntryId: payout.outcomeEntryId }] : []),
  ],
  command: payoutPostCommand,
  open: (payout) => payout.status === 'pending' || payout.status === 'approved',
});
