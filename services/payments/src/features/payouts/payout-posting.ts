import BigNumber from 'bignumber.js';
import { ACCOUNTS, formatAmount, type LedgerPostV1, type PayoutDestination, type PostingLine } from '@wallet/contracts';
import { caseStepCommandId, caseStepOf, caseStepsOf, type ChargedMoneyRecord, postCommandOf } from '@wallet/money-commands';
import { walletAccountName } from '../ledger/ledger-commands';
import { PAYOUT } from './payouts-store';

export type PayoutStep = keyof typeof PAYOUT.kinds;

export function payoutCommandId(caseId: string, step: PayoutStep): string {
  return caseStepCommandId(caseId, step);
}

export const stepOfCommand = caseStepOf(caseStepsOf(PAYOUT));

export interface PayoutPosting extends ChargedMoneyRecord {
  walletId: string;
  walletOwnerId: string;
  /** Names the float a completed payout credits; only the complete step reads it. */
  destination?: PayoutDestination | undefined;
  correlationId?: string | undefined;
}

/** The float the money left the platform from: the mobile money network's or the bank's. */
export function floatAccountOf(destination: PayoutDestination): string {
  return 'network' in destination ? ACCOUNTS.momoFloat.nameFor(destination.network) : ACCOUNTS.bankFloat.nameFor(destination.bankCode);
}

const { name: SUSPENSE } = ACCOUNTS.suspense;
const { name: PAYOUT_CLEARING } = ACCOUNTS.payoutClearing;
const { name: FEES } = ACCOUNTS.feeRevenue;
const { name: COMMISSION } = ACCOUNTS.platformCommission;

/**
 * The entries of docs/decisions/money-movements.md:
 * - payout_hold: DR wallet amount + fee; CR suspense amount + fee;
 * - payout_settle: DR suspense amount + fee; CR payout-clearing amount; CR revenue:fees fee and,
 *   with a commission, DR revenue:fees commission, CR platform-commission commission;
 * - payout_release: DR suspense amount + fee; CR wallet amount + fee;
 * - payout_complete: DR payout-clearing amount; CR the destination's float amount;
 * - payout_fail: DR payout-clearing amount; CR wallet amount; and the settle's fee lines reversed
 *   (DR revenue:fees fee, CR wallet fee; with a commission, DR platform-commission commission,
 *   CR revenue:fees commission), so the wallet gets amount + fee back and the fee is unearned.
 * Zero lines are left out (the ledger refuses zero amounts).
 */
export function payoutPostCommand(payout: PayoutPosting, step: PayoutStep): LedgerPostV1 {
  const currencyCode = payout.currencyCode;
  const held = formatAmount(new BigNumber(payout.amount).plus(payout.fee), currencyCode);
  const hasFee = new BigNumber(payout.fee).gt(0);
  const hasCommission = new BigNumber(payout.commission).gt(0);
  if (new BigNumber(payout.commission).gt(payout.fee)) throw new Error(`commission ${payout.commission} exceeds fee ${payout.fee}`);
  const wallet = (direction: 'DR' | 'CR', amount: string): PostingLine => ({
    accountName: walletAccountName({ ownerId: payout.walletOwnerId }),
    walletId: payout.walletId,
    direction,
    amount,
    currencyCode,
  });
  const system = (accountName: string, direction: 'DR' | 'CR', amount: string): PostingLine => ({
    accountName,
    direction,
    amount,
    currencyCode,
  });
  const linesOf: Record<PayoutStep, () => PostingLine[]> = {
    hold: () => [wallet('DR', held), system(SUSPENSE, 'CR', held)],
    release: () => [system(SUSPENSE, 'DR', held), wallet('CR', held)],
    settle: () => [
      system(SUSPENSE, 'DR', held),
      system(PAYOUT_CLEARING, 'CR', payout.amount),
      ...(hasFee ? [system(FEES, 'CR', payout.fee)] : []),
      ...(hasCommission ? [system(FEES, 'DR', payout.commission), system(COMMISSION, 'CR', payout.commission)] : []),
    ],
    complete: () => {
      if (!payout.destination) throw new Error(`payout ${payout.id}: the complete step needs the destination`);
      return [system(PAYOUT_CLEARING, 'DR', payout.amount), system(floatAccountOf(payout.destination), 'CR', payout.amount)];
    },
    fail: () => [
      system(PAYOUT_CLEARING, 'DR', payout.amount),
      wallet('CR', payout.amount),
      ...(hasFee ? [system(FEES, 'DR', payout.fee), wallet('CR', payout.fee)] : []),
      ...(hasCommission ? [system(COMMISSION, 'DR', payout.commission), system(FEES, 'CR', payout.commission)] : []),
    ],
  };
  const lines = linesOf[step]();
  return postCommandOf(payout, {
    commandId: payoutCommandId(payout.id, step),
    kind: PAYOUT.kinds[step],
    reference: { type: PAYOUT.referenceType, id: payout.id },
    lines,
  });
}
