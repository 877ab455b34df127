import BigNumber from 'bignumber.js';
import { currencyScale, type FeeTransactionType } from '@wallet/contracts';

/**
 * The fee engine of docs/decisions/fees.md, without I/O: every value is a BigNumber, never a
 * JS float, and every division is a decimal shift, so nothing is lost on the way.
 */

/** The terms of one rule; null bounds are open. */
export interface FeeRuleTerms {
  minAmount: BigNumber | null;
  maxAmount: BigNumber | null;
  flatFee: BigNumber;
  /** A percent: 1.5 means 1.5 %. */
  percentageFee: BigNumber;
  minFee: BigNumber | null;
  maxFee: BigNumber | null;
}

export interface FeeRuleForMatch extends FeeRuleTerms {
  id: string;
  transactionType: FeeTransactionType;
  currencyCode: string;
}

/** The amount band of a rule, inclusive at both ends; a null bound extends to infinity. */
export interface AmountBand {
  minAmount: BigNumber | null;
  maxAmount: BigNumber | null;
}

export interface FeeResult {
  /** At the currency's scale. */
  fee: BigNumber;
  /** The platform's share of the fee, at the currency's scale. */
  commission: BigNumber;
  scheduleId: string | null;
  ruleId: string | null;
  platformCommissionBps: number;
}

/** `minAmount <= amount <= maxAmount`, either bound optional. */
export function inBand(band: AmountBand, amount: BigNumber): boolean {
  return (band.minAmount === null || band.minAmount.lte(amount)) && (band.maxAmount === null || amount.lte(band.maxAmount));
}

/** Whether two inclusive bands share at least one amount; open bounds extend to infinity. */
export function bandsOverlap(a: AmountBand, b: AmountBand): boolean {
  const aStartsBeforeBEnds = a.minAmount === null || b.maxAmount === null || a.minAmount.lte(b.maxAmount);
  const bStartsBeforeAEnds = b.minAmount === null || a.maxAmount === null || b.minAmount.lte(a.maxAmount);
  return aStartsBeforeBEnds && bStartsBeforeAEnds;
}

/** The first rule, in the order given, for this type, currency and amount; null when none matches. */
export function matchRule<Rule extends FeeRuleForMatch>(
  rules: readonly Rule[],
  transactionType: FeeTransactionType,
  currencyCode: string,
  amount: BigNumber,
): Rule | null {
  return (
    rules.find((rule) => rule.transactionType === transactionType && rule.currencyCode === currencyCode && inBand(rule, amount)) ?? null
  );
}

/** clamp(flatFee + amount x percentageFee / 100, minFee, maxFee), rounded half-up to the currency's scale. */
export function feeOf(terms: FeeRuleTerms, amount: BigNumber, currencyCode: string): BigNumber {
  let fee = terms.flatFee.plus(amount.times(terms.percentageFee).shiftedBy(-2));
  if (terms.minFee !== null && fee.lt(terms.minFee)) fee = terms.minFee;
  if (terms.maxFee !== null && fee.gt(terms.maxFee)) fee = terms.maxFee;
  return fee.decimalPlaces(currencyScale(currencyCode), BigNumber.ROUND_HALF_UP);
}

/** fee x bps / 10000, rounded half-up to the currency's scale. */
export function commissionOf(fee: BigNumber, platformCommissionBps: number, currencyCode: string): BigNumber {
  if (!Number.isInteger(platformCommissionBps) || platformCommissionBps < 0 || platformCommissionBps > 10_000) {
    throw new Error(`platformCommissionBps must be an integer 0-10000, got ${platformCommissionBps}`);
  }
  return fee.times(platformCommissionBps).shiftedBy(-4).decimalPlaces(currencyScale(currencyCode), BigNumber.ROUND_HALF_UP);
}

/**
 * What a schedule charges for one transaction: the matching rule's fee and the platform's
 * commission of it. No schedule or no matching rule: fee 0, commission 0, null ids, bps 0.
 */
export function quoteWith(
  schedule: { id: string; platformCommissionBps: number } | null,
  rules: readonly FeeRuleForMatch[],
  transactionType: FeeTransactionType,
  currencyCode: string,
  amount: BigNumber,
): FeeResult {
  const rule = schedule ? matchRule(rules, transactionType, currencyCode, amount) : null;
  if (!schedule || !rule) {
    return { fee: new BigNumber(0), commission: new BigNumber(0), scheduleId: null, ruleId: null, platformCommissionBps: 0 };
  }
  const fee = feeOf(rule, amount, currencyCode);
  return {
    fee,
    commission: commissionOf(fee, schedule.platformCommissionBps, currencyCode),
    scheduleId: schedule.id,
    ruleId: rule.id,
    platformCommissionBps: schedule.platformCommissionBps,
  };
}
