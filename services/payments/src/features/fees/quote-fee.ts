import BigNumber from 'bignumber.js';
import { type FeeTransactionType, formatAmount } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';
import { requireValidAmount } from '@wallet/money-commands';
import { quoteWith } from './fee-calculator';
import { termsOf } from './fee-rules';
import { type DefaultTerms, findDefaultSchedule, rulesOf } from './fees-store';

/** What a transaction is charged, as decimal strings at the currency's scale, and where the fee came from. */
export interface FeeQuoteResult {
  fee: string;
  /** The platform's share of `fee`: fee x platformCommissionBps / 10000, rounded half-up. */
  commission: string;
  /** null (with fee "0") when the tenant has no default schedule or no rule of it matches. */
  scheduleId: string | null;
  ruleId: string | null;
  platformCommissionBps: number;
}

/**
 * The fee the tenant's default published schedule charges, read in the caller's transaction
 * (or on the pool), so a deposit, transfer or payout records the fee, the commission and the
 * schedule and rule they came from together with its own rows. GET /v1/fees/quote answers
 * from this same function. The amount is a decimal string (or BigNumber) valid for the
 * currency, else 400 INVALID_AMOUNT.
 */
export async function quoteFee(
  tx: Db | Tx,
  tenantId: string,
  transactionType: FeeTransactionType,
  currencyCode: string,
  amount: string | BigNumber,
): Promise<FeeQuoteResult> {
  const text = typeof amount === 'string' ? amount : amount.toFixed();
  requireValidAmount(text, currencyCode);
  const schedule = await findDefaultSchedule(tx, tenantId);
  const rules = schedule ? await rulesOf(tx, schedule.id, { transactionType, currencyCode }) : [];
  return quoteFromTerms({ schedule, rules }, transactionType, currencyCode, text);
}

/**
 * The same quote from terms read already (`defaultTermsExpression`, folded into a caller's
 * read); the amount is valid for the currency (checked by the caller).
 */
export function quoteFromTerms(
  terms: DefaultTerms,
  transactionType: FeeTransactionType,
  currencyCode: string,
  amount: string,
): FeeQuoteResult {
  const result = quoteWith(terms.schedule, terms.rules.map(termsOf), transactionType, currencyCode, new BigNumber(amount));
  return {
    fee: formatAmount(result.fee, currencyCode),
    commission: formatAmount(result.commission, currencyCode),
    scheduleId: result.scheduleId,
    ruleId: result.ruleId,
    platformCommissionBps: result.platformCommissionBps,
  };
}

/** What a charged record stores of its quote: the fee, the platform's commission, and the schedule and rule that set them. */
export interface ChargedFee {
  fee: string;
  commission: string;
  feeScheduleId: string | null;
  feeRuleId: string | null;
  platformCommissionBps: number;
}

export function chargedFee(quote: FeeQuoteResult): ChargedFee {
  return {
    fee: quote.fee,
    commission: quote.commission,
    feeScheduleId: quote.scheduleId,
    feeRuleId: quote.ruleId,
    platformCommissionBps: quote.platformCommissionBps,
  };
}
