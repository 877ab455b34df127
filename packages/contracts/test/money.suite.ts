import fc from 'fast-check';
import {
  AMOUNT_MAX_INTEGER_DIGITS,
  checkAmount,
  CURRENCY_SCALES,
  formatAmount,
  parseJsonLossless,
  amountInputSchema,
  roundToCurrency,
} from '@wallet/contracts';
import BigNumber from 'bignumber.js';

describe('amounts', () => {
  it('keeps a JSON number token as its exact text', () => {
    const body = parseJsonLossless('{"amount": 0.30000000000000004, "other": 100.10}') as Record<string, unknown>;
    expect(amountInputSchema.parse(body.amount)).toBe('0.30000000000000004');
    expect(amountInputSchema.parse(body.other)).toBe('100.10');
  });

  it.each([
    ['1e3', 'USD', 'NOT_A_DECIMAL'],
    ['-5', 'USD', 'NOT_A_DECIMAL'],
    ['NaN', 'USD', 'NOT_A_DECIMAL'],
    ['0', 'USD', 'NOT_POSITIVE'],
    ['0.00', 'USD', 'NOT_POSITIVE'],
    ['10.5', 'UGX', 'TOO_MANY_FRACTION_DIGITS'],
    ['1.001', 'USD', 'TOO_MANY_FRACTION_DIGITS'],
    ['01', 'USD', 'NOT_A_DECIMAL'],
    ['10.000', 'USD', 'TOO_MANY_FRACTION_DIGITS'],
    ['100.0', 'UGX', 'TOO_MANY_FRACTION_DIGITS'],
    ['1000000000000000000', 'USD', 'TOO_LARGE'],
    ['1000000000000000000.00', 'USD', 'TOO_LARGE'],
    ['1e1000000000000000000', 'USD', 'NOT_A_DECIMAL'],
  ])('refuses %s %s (%s)', (text, currency, problem) => {
    expect(checkAmount(text, currency)).toBe(problem);
  });

  it('accepts amounts at the currency scale and formats them at it', () => {
    expect(checkAmount('100.10', 'USD')).toBeNull();
    expect(checkAmount('1.005', 'KWD')).toBeNull();
    expect(formatAmount('100.1', 'USD')).toBe('100.10');
    expect(formatAmount('5000', 'UGX')).toBe('5000');
    expect(() => formatAmount('1.001', 'USD')).toThrow();
  });

  it('refuses more fraction digits than the currency has, whatever the digits are', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(CURRENCY_SCALES)),
        fc.bigInt({ min: 1n, max: 10n ** 18n - 1n }),
        fc.string({ unit: fc.constantFrom('0', '1', '9'), minLength: 1, maxLength: 6 }),
        (currency, integer, extra) => {
          const fraction = '0'.repeat(CURRENCY_SCALES[currency] as number) + extra;
          expect(checkAmount(`${integer}.${fraction}`, currency)).toBe('TOO_MANY_FRACTION_DIGITS');
          expect(checkAmount(`${integer}.${fraction.slice(0, CURRENCY_SCALES[currency])}`.replace(/\.$/, ''), currency)).toBeNull();
        },
      ),
    );
  });

  it('takes at most 18 integer digits, however long the text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), (digits) => {
        const text = `9${'0'.repeat(digits - 1)}`;
        expect(checkAmount(text, 'UGX')).toBe(digits <= AMOUNT_MAX_INTEGER_DIGITS ? null : 'TOO_LARGE');
      }),
      { numRuns: 50 },
    );
  });

  it('rounds half up to the currency scale', () => {
    expect(roundToCurrency(new BigNumber('0.125'), 'USD').toFixed()).toBe('0.13');
    expect(roundToCurrency(new BigNumber('2.5'), 'UGX').toFixed()).toBe('3');
  });

  it('round-trips any cent amount through text exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), (cents) => {
        const text = new BigNumber(cents.toString()).shiftedBy(-2).toFixed(2);
        expect(checkAmount(text, 'USD')).toBeNull();
        expect(formatAmount(text, 'USD')).toBe(text);
      }),
    );
  });
});
