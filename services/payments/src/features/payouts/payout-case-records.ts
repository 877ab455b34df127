import type { Db } from '@wallet/kit';
import { caseRecordSource, deliveredCaseOpen, deliveredCaseSteps } from '@wallet/money-commands';
import { payoutPostCommand, type PayoutStep } from './payout-posting';
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

/** Payout cases step by step: the maker-checker steps, then the rail's outcome (complete or fail); one still pending or approved posts again. */
export const payoutCaseSource = caseRecordSource<store.ReconciledPayoutCase, PayoutStep>({
  referenceType: store.PAYOUT.referenceType,
  table: store.PAYOUT.table,
  byIds: (db, ids) => payoutCasesByIds(db, null, ids),
  steps: deliveredCaseSteps,
  command: payoutPostCommand,
  open: deliveredCaseOpen,
});
