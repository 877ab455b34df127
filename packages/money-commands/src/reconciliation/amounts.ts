import BigNumber from 'bignumber.js';

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A decimal's one spelling (`100`, `100.0` and `100.00` are `100`); plain ones by string, as a run compares every line it reads. */
export function canonicalAmount(amount: string): string {
  const plain = PLAIN_DECIMAL.exec(amount);
  if (!plain) return new BigNumber(amount).toFixed();
  const whole = (plain[1] as string).replace(/^0+(?=\d)/, '');
  const fraction = (plain[2] ?? '').replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
