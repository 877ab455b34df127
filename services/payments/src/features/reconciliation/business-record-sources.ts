import type { BusinessRecordSource, ExpectedPosting } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import { depositPostingCommand } from '../deposits/deposit-posting';
import { PAYOUT_REFERENCE_TYPE, payoutPostCommand, type PayoutStep } from '../payouts/payout-posting';
import { transferPostCommand } from '../transfers/transfer-posting';
import {
  completedDepositsPage,
  completedTransfersPage,
  depositsByIds,
  payoutCasesByIds,
  postedPayoutCasesPage,
  type ReconciledDeposit,
  type ReconciledPayoutCase,
  type ReconciledTransfer,
  transfersByIds,
} from './reconciliation-store';

function expectedTransferPosting(transfer: ReconciledTransfer): ExpectedPosting {
  const command = transferPostCommand(transfer, { ...transfer.from, status: 'active' }, { ...transfer.to, status: 'active' });
  return { journalEntryId: transfer.journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines };
}

function expectedDepositPosting(deposit: ReconciledDeposit): ExpectedPosting {
  const isMomo = deposit.source === 'momo';
  const command = depositPostingCommand({
    depositId: deposit.id,
    kind: isMomo ? 'momo_deposit' : 'bank_deposit',
    floatAccount: isMomo ? `momo-float:${deposit.providerCode ?? ''}` : `bank-float:${deposit.bankCode ?? ''}`,
    wallet: deposit.wallet,
    amount: deposit.amount,
    charge: { fee: deposit.fee, commission: deposit.commission, scheduleId: null, ruleId: null },
  });
  return { journalEntryId: deposit.journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines };
}

function nextCursor<Row extends { seq: string }>(rows: Row[], limit: number): string | null {
  return rows.length === limit ? (rows[rows.length - 1]?.seq ?? null) : null;
}

export function transferSource(db: Db): BusinessRecordSource {
  return {
    referenceType: 'transfer',
    async finishedPage(scope, page) {
      const rows = await completedTransfersPage(db, scope, { beforeSeq: page.cursor, limit: page.limit });
      return { records: rows.map((row) => ({ id: row.id, tenantId: row.tenantId, environment: row.environment, postings: [expectedTransferPosting(row)] })), cursor: nextCursor(rows, page.limit) };
    },
    async byIds(scope, ids) {
      return (await transfersByIds(db, scope, ids)).map((row) => ({
        id: row.id,
        tenantId: row.tenantId,
        environment: row.environment,
        status: row.status,
        finished: row.status === 'completed',
        journalEntryIds: row.journalEntryId ? [row.journalEntryId] : [],
      }));
    },
  };
}

export function depositSource(db: Db): BusinessRecordSource {
  return {
    referenceType: 'deposit',
    async finishedPage(scope, page) {
      const rows = await completedDepositsPage(db, scope, { beforeSeq: page.cursor, limit: page.limit });
      return { records: rows.map((row) => ({ id: row.id, tenantId: row.tenantId, environment: row.environment, postings: [expectedDepositPosting(row)] })), cursor: nextCursor(rows, page.limit) };
    },
    async byIds(scope, ids) {
      return (await depositsByIds(db, scope, ids)).map((row) => ({
        id: row.id,
        tenantId: row.tenantId,
        environment: row.environment,
        status: row.status,
        finished: row.status === 'completed',
        journalEntryIds: row.journalEntryId ? [row.journalEntryId] : [],
      }));
    },
  };
}

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

export function payoutCaseSource(db: Db): BusinessRecordSource {
  return {
    referenceType: PAYOUT_REFERENCE_TYPE,
    async finishedPage(scope, page) {
      const rows = await postedPayoutCasesPage(db, scope, { beforeSeq: page.cursor, limit: page.limit });
      return { records: rows.map((row) => ({ id: row.id, tenantId: row.tenantId, environment: row.environment, postings: expectedPayoutPostings(row) })), cursor: nextCursor(rows, page.limit) };
    },
    async byIds(scope, ids) {
      return (await payoutCasesByIds(db, scope, ids)).map((row) => ({
        id: row.id,
        tenantId: row.tenantId,
        environment: row.environment,
        status: row.status,
        // Every case whose hold posted has moved money, whatever step it is at.
        finished: row.holdEntryId !== null,
        journalEntryIds: [row.holdEntryId, row.decisionEntryId, row.outcomeEntryId].filter((id): id is string => id !== null),
      }));
    },
  };
}
