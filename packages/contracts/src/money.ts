import BigNumber from 'bignumber.js';
import { z } from 'zod';

/** ISO 4217 minor units of the currencies the platform serves. */
export const CURRENCY_SCALES: Readonly<Record<string, number>> = Object.freeze({
  UGX: 0,
  RWF: 0,
  XOF: 0,
  XAF: 0,
  BIF: 0,
  GNF: 0,
  KMF: 0,
  DJF: 0,
  JPY: 0,
  KRW: 0,
  VND: 0,
  KES: 2,
  GHS: 2,
  NGN: 2,
  TZS: 2,
  ZMW: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  ZAR: 2,
  MWK: 2,
  ETB: 2,
  EGP: 2,
  MAD: 2,
  BWP: 2,
  NAD: 2,
  SZL: 2,
  LSL: 2,
  MZN: 2,
  AOA: 2,
  CDF: 2,
  SSP: 2,
  SDG: 2,
  SLE: 2,
  LRD: 2,
  GMD: 2,
  CVE: 2,
  MUR: 2,
  SCR: 2,
  MGA: 2,
  SOS: 2,
  ERN: 2,
  CAD: 2,
  CHF: 2,
  CNY: 2,
  INR: 2,
  AED: 2,
  SAR: 2,
  KWD: 3,
  BHD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3,
  LYD: 3,
  IQD: 3,
});

export const currencyCodeSchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code')
  .refine((code) => code in CURRENCY_SCALES, 'is not a supported currency');
export type CurrencyCode = z.infer<typeof currencyCodeSchema>;

export function currencyScale(currencyCode: string): number {
  const scale = CURRENCY_SCALES[currencyCode];
  if (scale === undefined) throw new Error(`unsupported currency ${currencyCode}`);
  return scale;
}

/** A plain positional decimal: no sign, no exponent, no leading '+'. */
const DECIMAL_TEXT = /^(0|[1-9]\d*)(\.\d+)?$/;
/** The start of a plain decimal, to tell an over-long number from text that is no number at all. */
const DECIMAL_PREFIX = /^[1-9]\d*(\.|$)/;
/** A signed decimal as stored balances may be (liability accounts never are, assets may be). */
const SIGNED_DECIMAL_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** Wire form of an amount: a decimal string. */
export const amountStringSchema = z.string().regex(DECIMAL_TEXT, 'must be a positive decimal string');
export const signedAmountStringSchema = z.string().regex(SIGNED_DECIMAL_TEXT, 'must be a decimal string');
export type AmountString = z.infer<typeof amountStringSchema>;

/**
 * The largest amount any field takes has 18 integer digits (below 10^18): far above any real
 * movement, small enough that no sum of a day's traffic nears NUMERIC's limits, and a bound on
 * what a refused request can make the service store or echo.
 */
export const AMOUNT_MAX_INTEGER_DIGITS = 18;

export type AmountProblem = 'NOT_A_DECIMAL' | 'NOT_POSITIVE' | 'TOO_MANY_FRACTION_DIGITS' | 'TOO_LARGE';

export interface AmountRules {
  /** Zero passes (fee bounds and flat fees); an amount that moves money is positive. */
  allowZero?: boolean;
  /** Integer digits allowed; journal lines, which add fees to amounts, take a few more. */
  maxIntegerDigits?: number;
}

const ZERO_TEXT = /^0(\.0+)?$/;

/**
 * The one rule for every amount's exact decimal text against its currency. Exponent notation,
 * signs, NaN, zero, more than 18 integer digits, and more fraction digits than the currency has
 * (trailing zeros too: `10.000` is not a USD amount) are refused.
 */
export function checkAmount(text: string, currencyCode: string, rules: AmountRules = {}): AmountProblem | null {
  const point = text.indexOf('.');
  const integerDigits = point < 0 ? text.length : point;
  if (integerDigits > (rules.maxIntegerDigits ?? AMOUNT_MAX_INTEGER_DIGITS))
    return DECIMAL_PREFIX.test(text) ? 'TOO_LARGE' : 'NOT_A_DECIMAL';
  if (!DECIMAL_TEXT.test(text)) return 'NOT_A_DECIMAL';
  if (!rules.allowZero && ZERO_TEXT.test(text)) return 'NOT_POSITIVE';
  if (point >= 0 && text.length - point - 1 > currencyScale(currencyCode)) return 'TOO_MANY_FRACTION_DIGITS';
  return null;
}

/** Parses a checked amount; a bad amount here is a programmer error (check at the edge first). */
export function parseAmount(text: string, currencyCode: string): BigNumber {
  const problem = checkAmount(text, currencyCode);
  if (problem) throw new Error(`invalid amount ${JSON.stringify(text)} for ${currencyCode}: ${problem}`);
  return new BigNumber(text);
}

/** Writes an amount at its currency's scale: "100.00" for USD, "5000" for UGX. */
export function formatAmount(value: BigNumber.Value, currencyCode: string): string {
  const amount = new BigNumber(value);
  const scale = currencyScale(currencyCode);
  if (!amount.isFinite()) throw new Error('cannot format a non-finite amount');
  // Formatting never rounds money: an amount finer than the currency is a bug upstream.
  if ((amount.decimalPlaces() ?? 0) > scale) throw new Error(`${amount.toFixed()} is finer than ${currencyCode} allows`);
  return amount.toFixed(scale);
}

/** Rounds half-up to the currency's scale (fees and commissions). */
export function roundToCurrency(value: BigNumber, currencyCode: string): BigNumber {
  return value.decimalPlaces(currencyScale(currencyCode), BigNumber.ROUND_HALF_UP);
}

/**
 * What every money-moving route says of the tenant's maxTransactionAmount (its configuration):
 * an inclusive ceiling on the amount, checked before anything is stored or posted.
 */
export const TRANSACTION_LIMIT_NOTE =
  "422 AMOUNT_EXCEEDS_LIMIT with details.maxTransactionAmount when the amount is above the tenant's maxTransactionAmount (inclusive; nothing is stored or posted)";
