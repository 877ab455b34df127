import BigNumber from 'bignumber.js';
import { checkAmount } from '@wallet/contracts';
import { AppError } from '@wallet/kit';

/** A movement's amount as its body gives it. */
export interface MovementAmount {
  amount: string;
  currencyCode: string;
}

/** How a movement declares its amount's checks, which the engine applies (MoneyCommand.checkAmount, checkLimit). */
export interface AmountRule {
  /** Whether the tenant's maxTransactionAmount caps the amount ('none': a reversal is capped by its transfer instead). */
  limit: 'tenant' | 'none';
  /** Whether INVALID_AMOUNT's details repeat the amount, as the deposit routes' answers always have. */
  echoAmount?: boolean;
}

/** The 400 of an amount that breaks its currency's amount rules (docs/decisions/amounts.md), or null. */
export function invalidAmountError(amount: string, currencyCode: string, rule: Pick<AmountRule, 'echoAmount'> = {}): AppError | null {
  const problem = checkAmount(amount, currencyCode);
  if (!problem) return null;
  const details = rule.echoAmount ? { field: 'amount', problem, amount } : { field: 'amount', problem };
  return new AppError('INVALID_AMOUNT', `amount is not a valid ${currencyCode} amount (${problem})`, details);
}

export function requireValidAmount(amount: string, currencyCode: string, rule: Pick<AmountRule, 'echoAmount'> = {}): void {
  const error = invalidAmountError(amount, currencyCode, rule);
  if (error) throw error;
}

/**
 * The tenant's `maxTransactionAmount`, an inclusive ceiling on every money movement (deposits,
 * bank slips, transfers, payouts, float deposits, withdrawals): the 422 to answer for an amount
 * above it, or null. Compared as exact decimals.
 */
export function transactionLimitError(amount: string, maxTransactionAmount: string): AppError | null {
  if (!new BigNumber(amount).gt(maxTransactionAmount)) return null;
  return new AppError('AMOUNT_EXCEEDS_LIMIT', `amount is over the tenant's maximum of ${maxTransactionAmount} per transaction`, {
    maxTransactionAmount,
  });
}
