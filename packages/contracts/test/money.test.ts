import fc from 'fast-check';
import { checkAmount, formatAmount, parseJsonLossless, amountInputSchema, roundToCurrency } from '@wallet/contracts';
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
