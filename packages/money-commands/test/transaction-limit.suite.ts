import fc from 'fast-check';
import { invalidAmountError, transactionLimitError } from '../src';

/** A decimal's value in thousandths as a BigInt: an exact reference that shares nothing with bignumber.js. */
function thousandths(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 1000n + BigInt(fraction.padEnd(3, '0'));
}

const decimal = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }), fc.constantFrom(0, 1, 2, 3), fc.nat({ max: 999 }))
  .map(([whole, digits, fraction]) => (digits === 0 ? whole.toString() : `${whole}.${String(fraction).padStart(3, '0').slice(0, digits)}`));

describe('transactionLimitError', () => {
  it('refuses exactly the amounts above the ceiling (inclusive), with the ceiling in details', () => {
    fc.assert(
      fc.property(decimal, decimal, (amount, ceiling) => {
        const error = transactionLimitError(amount, ceiling);
        expect(error !== null).toBe(thousandths(amount) > thousandths(ceiling));
        if (error)
          expect([error.code, error.status, error.details]).toEqual(['AMOUNT_EXCEEDS_LIMIT', 422, { maxTransactionAmount: ceiling }]);
      }),
      { numRuns: 2000 },
    );
  });

  it('compares where a double cannot tell the two apart', () => {
    expect(Number('9007199254740993') > Number('9007199254740992')).toBe(false);
    expect(transactionLimitError('9007199254740993', '9007199254740992')?.code).toBe('AMOUNT_EXCEEDS_LIMIT');
    expect(transactionLimitError('1000000.00', '1000000')).toBeNull();
    expect(transactionLimitError('1000000.01', '1000000')?.details).toEqual({ maxTransactionAmount: '1000000' });
  });
});

describe('invalidAmountError', () => {
  it("answers 400 INVALID_AMOUNT with the currency's problem, the amount repeated only where the rule says so", () => {
    const plain = invalidAmountError('10.001', 'USD');
    const echoed = invalidAmountError('10.001', 'USD', { echoAmount: true });
    expect([plain?.code, plain?.status]).toEqual(['INVALID_AMOUNT', 400]);
    expect(plain?.message).toMatch(/^amount is not a valid USD amount \(.+\)$/);
    expect(plain?.details).toEqual({ field: 'amount', problem: expect.any(String) });
    expect(echoed?.details).toEqual({ ...plain?.details, amount: '10.001' });
  });

  it('passes an amount of the currency, and refuses zero and signs', () => {
    expect(invalidAmountError('10.01', 'USD')).toBeNull();
    expect(invalidAmountError('0', 'USD')?.code).toBe('INVALID_AMOUNT');
    expect(invalidAmountError('-1', 'USD')?.code).toBe('INVALID_AMOUNT');
    expect(invalidAmountError('1.5', 'JPY')?.code).toBe('INVALID_AMOUNT');
  });
});
