import BigNumber from 'bignumber.js';
import { canonicalAmount } from '../src/reconciliation/amounts';

describe("check 3's amount comparison", () => {
  it('spells every decimal as BigNumber does, plain ones included', () => {
    const amounts = [
      '0',
      '0.00',
      '00',
      '100',
      '100.0',
      '100.00',
      '007.50',
      '0.05',
      '1.10',
      '12345678901234567890.123456789000',
      '-3.50',
      '1e3',
      '-0.00',
      '.5',
    ];
    for (const amount of amounts) expect(canonicalAmount(amount)).toBe(new BigNumber(amount).toFixed());
  });

  it('keeps amounts that differ apart', () => {
    expect(canonicalAmount('10.5')).not.toBe(canonicalAmount('1.05'));
    expect(canonicalAmount('100')).not.toBe(canonicalAmount('10'));
  });
});
