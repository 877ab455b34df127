import { currencyScale } from '@wallet/contracts';
import BigNumber from 'bignumber.js';

export interface MoneyFormatOptions {
  /** BCP 47 locale for the separators; the viewer's by default. */
  locale?: string | undefined;
  /** `code` (USD 1,234.50, the default) or `none` (1,234.50, where a column names the currency). */
  currencyDisplay?: 'code' | 'none';
}

interface Separators {
  group: string;
  decimal: string;
}

const separatorCache = new Map<string, Separators>();

/** The locale's group and decimal separators, learnt from Intl on a fixed sample: no amount ever goes through Intl. */
function separatorsOf(locale: string | undefined): Separators {
  const key = locale ?? '';
  const cached = separatorCache.get(key);
  if (cached) return cached;
  const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(1234567.5);
  const separators = {
    group: parts.find((part) => part.type === 'group')?.value ?? ',',
    decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.',
  };
  separatorCache.set(key, separators);
  return separators;
}

const DECIMAL_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * An amount exactly as the API gave it (a decimal string), with thousands separators and at
 * least its currency's scale of fraction digits ("1234.5" USD is "USD 1,234.50"). It goes from
 * string to BigNumber to string only: never through a JS number. An amount finer than its
 * currency is shown with all its digits, not rounded; text that is no decimal is shown as is.
 */
export function formatMoney(amount: string, currencyCode: string, options: MoneyFormatOptions = {}): string {
  if (!DECIMAL_TEXT.test(amount)) return amount;
  const value = new BigNumber(amount);
  const scale = knownScale(currencyCode);
  const digits = Math.max(scale ?? 0, value.decimalPlaces() ?? 0);
  const { group, decimal } = separatorsOf(options.locale);
  const number = value.abs().toFormat(digits, {
    groupSeparator: group,
    groupSize: 3,
    decimalSeparator: decimal,
    prefix: '',
    suffix: '',
    secondaryGroupSize: 0,
    fractionGroupSeparator: '',
    fractionGroupSize: 0,
  });
  const sign = value.isNegative() && !value.isZero() ? '-' : '';
  return options.currencyDisplay === 'none' ? `${sign}${number}` : `${sign}${currencyCode} ${number}`;
}

/** The currency's ISO 4217 scale, or null for a code the platform does not list (shown with its own digits). */
function knownScale(currencyCode: string): number | null {
  try {
    return currencyScale(currencyCode);
  } catch {
    return null;
  }
}
