import type { Db } from '@wallet/kit';
import * as store from './transfers-store';

export type { ReconciledTransfer, TransferWallet } from './transfers-store';

/*
 * Transfers as reconciliation reads them, each with the wallets its posting names. Read through
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
