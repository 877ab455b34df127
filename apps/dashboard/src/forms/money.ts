import { type AmountProblem, checkAmount, currencyCodeSchema } from '@wallet/contracts';

const AMOUNT_PROBLEMS: Record<AmountProblem, string> = {
  NOT_A_DECIMAL: 'Enter a plain decimal amount, like 1250.50',
  NOT_POSITIVE: 'The amount must be more than zero',
  TOO_MANY_FRACTION_DIGITS: 'More decimal places than the currency has',
  TOO_LARGE: 'The amount is too large',
};

/**
 * An amount field checked by the platform's own rule for its currency (the server's 400
 * INVALID_AMOUNT, said before sending). Null when it passes, or when the currency is not known
 * yet: the currency field then says what is wrong.
 */
export function amountProblem(amount: string, currencyCode: string): string | null {
  if (!currencyCodeSchema.safeParse(currencyCode).success) return null;
  const problem = checkAmount(amount.trim(), currencyCode);
  return problem === null ? null : AMOUNT_PROBLEMS[problem];
}
