import type { Db } from '@wallet/kit';
import * as store from './deposits-store';

export { DEPOSIT } from './deposits-store';
export type { ReconciledDeposit, StalePendingSlip } from './deposits-store';

/*
 * Deposits as reconciliation reads them: with their wallets, and the bank slips left pending.
 * Read through deposits' own store, which no other feature touches.
 */

/** Deposits by id, of any status; within the scope when one is given. */
export function depositsByIds(db: Db, scope: store.DepositScope | null, ids: readonly string[]): Promise<store.ReconciledDeposit[]> {
  return store.depositsByIds(db, scope, ids);
}

/** A scope's deposits after a seq, in seq order, at most `limit`. */
export function depositsAfter(db: Db, scope: store.DepositScope, afterSeq: string, limit: number): Promise<store.ReconciledDeposit[]> {
  return store.depositsAfter(db, scope, afterSeq, limit);
}

/** Bank slips still pending that were submitted before `submittedBefore`, oldest first, at most `limit`. */
export function stalePendingSlips(
  db: Db,
  scope: store.DepositScope | null,
  filter: { submittedBefore: Date; limit: number },
): Promise<store.StalePendingSlip[]> {
  return store.stalePendingSlips(db, scope, filter);
}
