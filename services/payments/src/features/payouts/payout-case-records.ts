import type { Db } from '@wallet/kit';
import * as store from './payouts-store';

export { PAYOUT } from './payouts-store';
export type { ReconciledPayoutCase } from './payouts-store';

/**
 * Payout cases by id, of any status, with what their steps posted; within the scope when one is
 * given. Read through payouts' own store, which no other feature touches.
 */
export function payoutCasesByIds(db: Db, scope: store.PayoutScope | null, ids: readonly string[]): Promise<store.ReconciledPayoutCase[]> {
  return store.payoutCasesByIds(db, scope, ids);
}
