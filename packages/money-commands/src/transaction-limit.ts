import BigNumber from 'bignumber.js';
import { AppError } from '@wallet/kit';

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

export function requireWithinTransactionLimit(amount: string, maxTransactionAmount: string): void {
  const error = transactionLimitError(amount, maxTransactionAmount);
  if (error) throw error;
}
