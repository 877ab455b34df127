import type { Db } from '@wallet/kit';
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
