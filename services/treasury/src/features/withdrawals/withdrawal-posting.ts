import {
  ACCOUNTS,
  type LedgerPostV1,
  type PostingLine,
  RAIL_CLEARING,
  type WithdrawalMethod,
  type WithdrawalSource,
} from '@wallet/contracts';
import { caseStepCommandId, caseStepOf, caseStepsOf, type MoneyRecord, postCommandOf } from '@wallet/money-commands';
import { WITHDRAWAL } from './withdrawals-store';

export type WithdrawalStep = keyof typeof WITHDRAWAL.kinds;

export function withdrawalCommandId(caseId: string, step: WithdrawalStep): string {
  return caseStepCommandId(caseId, step);
}

export const stepOfCommand = caseStepOf(caseStepsOf(WITHDRAWAL));

/** The ledger account each source names (docs/decisions/money-movements.md). */
export function sourceAccountOf(source: WithdrawalSource, currencyCode: string): string {
  return source === 'tenant_fees' ? ACCOUNTS.feeRevenue.name : ACCOUNTS.pool.nameFor(currencyCode);
}

export interface WithdrawalPosting extends MoneyRecord {
  source: WithdrawalSource;
  /** Names the rail whose clearing account a completed withdrawal leaves through. */
  payoutMethod: WithdrawalMethod;
  correlationId?: string | undefined;
}

/**
 * docs/decisions/money-movements.md: withdrawal_hold moves the amount from the source to `suspense`,
 * withdrawal_settle from `suspense` to `payout-clearing`, withdrawal_release from `suspense`
 * back to the source; once the rail answered, withdrawal_complete moves it from
 * `payout-clearing` to the rail's clearing account (`asset:<method>-clearing:<cur>`, where a
 * float deposit over that rail comes in), withdrawal_fail from `payout-clearing` back to the
 * source. "From" is the side that lowers the source's balance: fee revenue is credit normal, so
 * it is debited (DR revenue:fees, CR suspense, as payout_hold does to a wallet); the operating
 * float is an asset, debit normal, so it is credited (CR asset:pool, DR suspense). Suspense and
 * payout clearing then carry the pool's amount on the asset side until it leaves, and every step
 * is the hold's sides carried one account further: a completed fee withdrawal credits the rail's
 * clearing (money out, as payout_complete credits a float), a completed float withdrawal debits
 * it (the float deposit over that rail undone). Reading the pool's lines the other way round
 * would make a withdrawal grow the operating float.
 */
export function withdrawalPostCommand(withdrawal: WithdrawalPosting, step: WithdrawalStep): LedgerPostV1 {
  const { currencyCode, amount } = withdrawal;
  const source = sourceAccountOf(withdrawal.source, currencyCode);
  // Out of a credit-normal account is a debit; out of a debit-normal one a credit.
  const out: PostingLine['direction'] = withdrawal.source === 'tenant_fees' ? 'DR' : 'CR';
  const into: PostingLine['direction'] = out === 'DR' ? 'CR' : 'DR';
  const line = (accountName: string, direction: PostingLine['direction']): PostingLine => ({
    accountName,
    direction,
    amount,
    currencyCode,
  });
  const linesOf: Record<WithdrawalStep, () => PostingLine[]> = {
    hold: () => [line(source, out), line(ACCOUNTS.suspense.name, into)],
    settle: () => [line(ACCOUNTS.suspense.name, out), line(ACCOUNTS.payoutClearing.name, into)],
    release: () => [line(ACCOUNTS.suspense.name, out), line(source, into)],
    complete: () => [line(ACCOUNTS.payoutClearing.name, out), line(RAIL_CLEARING[withdrawal.payoutMethod].nameFor(currencyCode), into)],
    fail: () => [line(ACCOUNTS.payoutClearing.name, out), line(source, into)],
  };
  return postCommandOf(withdrawal, {
    commandId: withdrawalCommandId(withdrawal.id, step),
    kind: WITHDRAWAL.kinds[step],
    reference: { type: WITHDRAWAL.referenceType, id: withdrawal.id },
    lines: linesOf[step](),
  });
}
