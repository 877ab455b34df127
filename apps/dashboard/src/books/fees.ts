import { addFeeRuleBodySchema, checkAmount, CURRENCY_SCALES, feeQuoteQuerySchema, type FeeTransactionType } from '@wallet/contracts';
import BigNumber from 'bignumber.js';
import type { z } from 'zod';

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

/** The money fields of a rule, in the order the form shows them. */
export const FEE_RULE_AMOUNT_FIELDS = ['minAmount', 'maxAmount', 'flatFee', 'minFee', 'maxFee'] as const;
type RuleAmountField = (typeof FEE_RULE_AMOUNT_FIELDS)[number];

/** The add-rule form as typed: every field text, an empty one left out (an open bound, a zero fee). */
export type FeeRuleFormValues = Record<'transactionType' | 'currencyCode' | RuleAmountField | 'percentageFee', string>;

export const emptyFeeRuleForm: FeeRuleFormValues = {
  transactionType: 'transfer',
  currencyCode: '',
  minAmount: '',
  maxAmount: '',
  flatFee: '',
  percentageFee: '',
  minFee: '',
  maxFee: '',
};

const PERCENT_TEXT = /^(0|[1-9]\d*)(\.\d{1,4})?$/;

/** Both bounds given and upside down: compared exactly, never as floats. */
function upsideDown(low: string | null | undefined, high: string | null | undefined): boolean {
  if (low === null || low === undefined || high === null || high === undefined) return false;
  const [from, to] = [new BigNumber(low), new BigNumber(high)];
  return from.isFinite() && to.isFinite() && from.gt(to);
}

/**
 * The add-rule dialog's form: the route's body schema, then what the server checks before it
 * answers 400 (each amount against its currency, zero allowed; the percentage; bands and fee
 * bounds the right way up), said at the field instead.
 */
export const feeRuleFormSchema = addFeeRuleBodySchema.superRefine((body, context) => {
  const known = body.currencyCode in CURRENCY_SCALES;
  for (const field of FEE_RULE_AMOUNT_FIELDS) {
    const value = body[field];
    if (!known || value === null || value === undefined) continue;
    const problem = checkAmount(value, body.currencyCode, { allowZero: true });
    if (problem !== null && problem !== 'NOT_POSITIVE')
      context.addIssue({ code: 'custom', path: [field], message: `${value} ${AMOUNT_PROBLEMS[problem]}` });
  }
  const percent = body.percentageFee;
  if (percent !== undefined && (!PERCENT_TEXT.test(percent) || new BigNumber(percent).gt(100)))
    context.addIssue({ code: 'custom', path: ['percentageFee'], message: 'A percent from 0 to 100, at most 4 decimals (1.5 is 1.5 %)' });
  if (upsideDown(body.minAmount, body.maxAmount))
    context.addIssue({ code: 'custom', path: ['maxAmount'], message: 'Must not be below the lowest amount' });
  if (upsideDown(body.minFee, body.maxFee))
    context.addIssue({ code: 'custom', path: ['maxFee'], message: 'Must not be below the minimum fee' });
});

/** The form's text as the add-rule body: trimmed decimal strings, an empty field left out. */
export function feeRuleBodyOf(values: FeeRuleFormValues): z.input<typeof feeRuleFormSchema> {
  const text = (value: string): string | undefined => (value.trim() === '' ? undefined : value.trim());
  return {
    transactionType: values.transactionType as FeeTransactionType,
    currencyCode: values.currencyCode.trim().toUpperCase(),
    minAmount: text(values.minAmount),
    maxAmount: text(values.maxAmount),
    flatFee: text(values.flatFee),
    percentageFee: text(values.percentageFee),
    minFee: text(values.minFee),
    maxFee: text(values.maxFee),
  };
}
