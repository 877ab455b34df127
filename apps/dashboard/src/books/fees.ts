import { checkAmount, CURRENCY_SCALES, feeQuoteQuerySchema } from '@wallet/contracts';
import BigNumber from 'bignumber.js';

const AMOUNT_PROBLEMS: Record<NonNullable<ReturnType<typeof checkAmount>>, string> = {
  NOT_A_DECIMAL: 'must be a plain decimal number, such as 1250.50',
  NOT_POSITIVE: 'must be more than zero',
  TOO_MANY_FRACTION_DIGITS: "has more decimals than the currency's minor unit",
  TOO_LARGE: 'is too large',
};

/**
 * The quote calculator's form: the route's query schema, and the amount checked against its
 * currency by the contracts' one amount rule, as the server does before it answers 400 INVALID_AMOUNT.
 */
export const feeQuoteFormSchema = feeQuoteQuerySchema.superRefine((query, context) => {
  // A currency the schema refused has no scale to check against: its own issue says so.
  if (!(query.currencyCode in CURRENCY_SCALES)) return;
  const problem = checkAmount(query.amount, query.currencyCode);
  if (problem !== null) context.addIssue({ code: 'custom', path: ['amount'], message: `${query.amount} ${AMOUNT_PROBLEMS[problem]}` });
});

/** A commission in basis points as a percent ("250" bps is "2.5 %"), exactly. */
export function basisPointsAsPercent(bps: number): string {
  return `${new BigNumber(bps).dividedBy(100).toFixed()} %`;
}

/** A rule's percentage as the API gives it, a decimal string, with its sign: never through a float. */
export function percentText(percentageFee: string): string {
  return `${new BigNumber(percentageFee).toFixed()} %`;
}
