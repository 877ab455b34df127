import BigNumber from 'bignumber.js';
import { type AddFeeRuleBody, checkAmount, type FeeRule, type FeeTransactionType, formatAmount } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import type { FeeRuleForMatch } from './fee-calculator';
import type { StoredRule } from './fees-store';

/** A plain positional decimal, zero allowed: no sign, no exponent. */
const NON_NEGATIVE_DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;
/** Longer than any real amount; keeps absurd inputs out of NUMERIC columns. */
const MAX_DECIMAL_LENGTH = 40;
export const PERCENTAGE_FEE_MAX_FRACTION_DIGITS = 4;

/** A validated rule: the terms as BigNumbers for the engine, and as normalized text for storage. */
export interface RuleInput {
  transactionType: FeeTransactionType;
  currencyCode: string;
  terms: Omit<FeeRuleForMatch, 'id'>;
  text: {
    minAmount: string | null;
    maxAmount: string | null;
    flatFee: string;
    percentageFee: string;
    minFee: string | null;
    maxFee: string | null;
  };
}

function invalidField(field: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', `Invalid request body: ${field} ${message}`, { fields: [{ path: field, message }] });
}

/** An amount field of a rule: zero or an amount of the currency (the one amount rule), else 400 INVALID_AMOUNT. */
function moneyField(field: string, value: string | null | undefined, currencyCode: string): BigNumber | null {
  if (value === undefined || value === null) return null;
  const problem = checkAmount(value, currencyCode, { allowZero: true });
  if (problem) throw new AppError('INVALID_AMOUNT', `${field} is not a valid ${currencyCode} amount (${problem})`, { field, problem });
  return new BigNumber(value);
}

function percentageField(value: string | undefined): BigNumber {
  if (value === undefined) return new BigNumber(0);
  const message = `must be a decimal from 0 to 100 with at most ${PERCENTAGE_FEE_MAX_FRACTION_DIGITS} fraction digits`;
  if (value.length > MAX_DECIMAL_LENGTH || !NON_NEGATIVE_DECIMAL.test(value)) throw invalidField('percentageFee', message);
  const percent = new BigNumber(value);
  const point = value.indexOf('.');
  const fractionDigits = point < 0 ? 0 : value.length - point - 1;
  if (percent.gt(100) || fractionDigits > PERCENTAGE_FEE_MAX_FRACTION_DIGITS) throw invalidField('percentageFee', message);
  return percent;
}

const textOf = (value: BigNumber | null): string | null => (value === null ? null : value.toFixed());

/** Checks a rule body against its currency; bands and fee bounds must not be upside down. */
export function parseRuleInput(body: AddFeeRuleBody): RuleInput {
  const { transactionType, currencyCode } = body;
  const minAmount = moneyField('minAmount', body.minAmount, currencyCode);
  const maxAmount = moneyField('maxAmount', body.maxAmount, currencyCode);
  const flatFee = moneyField('flatFee', body.flatFee, currencyCode) ?? new BigNumber(0);
  const percentageFee = percentageField(body.percentageFee);
  const minFee = moneyField('minFee', body.minFee, currencyCode);
  const maxFee = moneyField('maxFee', body.maxFee, currencyCode);
  if (minAmount && maxAmount && minAmount.gt(maxAmount)) throw invalidField('minAmount', 'must not be greater than maxAmount');
  if (minFee && maxFee && minFee.gt(maxFee)) throw invalidField('minFee', 'must not be greater than maxFee');
  return {
    transactionType,
    currencyCode,
    terms: { transactionType, currencyCode, minAmount, maxAmount, flatFee, percentageFee, minFee, maxFee },
    text: {
      minAmount: textOf(minAmount),
      maxAmount: textOf(maxAmount),
      flatFee: flatFee.toFixed(),
      percentageFee: percentageFee.toFixed(),
      minFee: textOf(minFee),
      maxFee: textOf(maxFee),
    },
  };
}

const numberOf = (text: string | null): BigNumber | null => (text === null ? null : new BigNumber(text));

/** A stored rule as the engine reads it. */
export function termsOf(rule: StoredRule): FeeRuleForMatch {
  return {
    id: rule.id,
    transactionType: rule.transactionType,
    currencyCode: rule.currencyCode,
    minAmount: numberOf(rule.minAmount),
    maxAmount: numberOf(rule.maxAmount),
    flatFee: new BigNumber(rule.flatFee),
    percentageFee: new BigNumber(rule.percentageFee),
    minFee: numberOf(rule.minFee),
    maxFee: numberOf(rule.maxFee),
  };
}

/** A rule on the wire: amounts at the currency's scale, the percent as a plain decimal string. */
export function toFeeRule(rule: StoredRule): FeeRule {
  const amount = (text: string | null): string | null => (text === null ? null : formatAmount(text, rule.currencyCode));
  return {
    id: rule.id,
    scheduleId: rule.scheduleId,
    transactionType: rule.transactionType,
    currencyCode: rule.currencyCode,
    minAmount: amount(rule.minAmount),
    maxAmount: amount(rule.maxAmount),
    flatFee: formatAmount(rule.flatFee, rule.currencyCode),
    percentageFee: new BigNumber(rule.percentageFee).toFixed(),
    minFee: amount(rule.minFee),
    maxFee: amount(rule.maxFee),
    createdAt: rule.createdAt.toISOString(),
  };
}
