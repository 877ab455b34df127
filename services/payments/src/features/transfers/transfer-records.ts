import type { ExpectedPosting } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import { singleEntrySource } from '@wallet/money-commands';
import { transferDigestsAfter } from './transfer-digests';
import { transferPostCommand } from './transfer-posting';
import { reversalPostCommand } from './transfer-reversal-posting';
import * as reversals from './transfer-reversals-store';
import * as store from './transfers-store';

export { transferDigestsAfter } from './transfer-digests';
export { TRANSFER_REVERSAL } from './transfer-reversals-store';
export { TRANSFER } from './transfers-store';
export type { ReconciledReversal } from './transfer-reversals-store';
export type { ReconciledTransfer, TransferWallet } from './transfers-store';

/*
 * Transfers and their reversals as reconciliation reads them, each with the wallets its posting names. Read through
 * transfers' own store, which no other feature touches.
 */

/** Transfers by id, of any status; within the scope when one is given. */
export function transfersByIds(db: Db, scope: store.TransferScope | null, ids: readonly string[]): Promise<store.ReconciledTransfer[]> {
  return store.transfersByIds(db, scope, ids);
}

/** A scope's transfers after a seq, in seq order, at most `limit`. */
export function transfersAfter(db: Db, scope: store.TransferScope, afterSeq: string, limit: number): Promise<store.ReconciledTransfer[]> {
  return store.transfersAfter(db, scope, afterSeq, limit);
}

/** Reversals by id, of any status, each with its transfer's entry and wallets. */
export function reversalsByIds(db: Db, ids: readonly string[]): Promise<reversals.ReconciledReversal[]> {
  return reversals.reversalsByIds(db, null, ids);
}

/** A scope's reversals after a seq, in seq order, at most `limit`. */
export function reversalsAfter(
  db: Db,
  scope: store.TransferScope,
  afterSeq: string,
  limit: number,
): Promise<reversals.ReconciledReversal[]> {
  return reversals.reversalsAfter(db, scope, afterSeq, limit);
}

function transferPosting(transfer: store.ReconciledTransfer): Omit<ExpectedPosting, 'journalEntryId'> {
  const command = transferPostCommand(transfer, transfer.from, transfer.to);
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

/** Transfers for reconciliation's check 3: one entry once completed; a full run's pages digested where they are stored. */
export const transferSource = singleEntrySource({
  referenceType: store.TRANSFER.type,
  table: store.TRANSFER.table,
  rowsByIds: (db, ids) => transfersByIds(db, null, ids),
  rowsAfter: transfersAfter,
  posting: transferPosting,
  digestAfter: transferDigestsAfter,
});

function reversalPosting(reversal: reversals.ReconciledReversal): Omit<ExpectedPosting, 'journalEntryId'> {
  const command = reversalPostCommand(reversal, { journalEntryId: reversal.transferEntryId ?? '', from: reversal.from, to: reversal.to });
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

/** Reversals for reconciliation's check 3: one entry once completed, naming the reversed transfer's. */
export const transferReversalSource = singleEntrySource({
  referenceType: reversals.TRANSFER_REVERSAL.type,
  table: reversals.TRANSFER_REVERSAL.table,
  rowsByIds: reversalsByIds,
  rowsAfter: reversalsAfter,
  posting: reversalPosting,
});
