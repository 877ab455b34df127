import BigNumber from 'bignumber.js';
import type { PostingLine } from '@wallet/contracts';
import { payoutPostCommand, type PayoutPosting, stepOfCommand } from '../src/features/payouts/payout-posting';

const base: PayoutPosting = {
  id: 'pc_01TEST',
  tenantId: 'tn_TEST',
  environment: 'test',
  walletId: 'wal_1',
  walletOwnerId: 'owner-1',
  currencyCode: 'USD',
  amount: '50.00',
  fee: '1.50',
  commission: '0.38',
  destination: { phoneNumber: '+256700000001', network: 'airtel' },
};

function balanced(lines: readonly PostingLine[]): boolean {
  const sum = (direction: 'DR' | 'CR') =>
    lines.filter((line) => line.direction === direction).reduce((total, line) => total.plus(line.amount), new BigNumber(0));
  return sum('DR').eq(sum('CR'));
}

describe('payout rail steps as ledger commands', () => {
  it('names the complete and fail steps in their command ids and kinds', () => {
    expect(payoutPostCommand(base, 'complete')).toMatchObject({
      commandId: 'pc_01TEST:complete',
      kind: 'payout_complete',
      reference: { type: 'payout_case', id: 'pc_01TEST' },
    });
    expect(payoutPostCommand(base, 'fail')).toMatchObject({ commandId: 'pc_01TEST:fail', kind: 'payout_fail' });
    expect(stepOfCommand('pc_01TEST:complete')).toBe('complete');
    expect(stepOfCommand('pc_01TEST:fail')).toBe('fail');
    expect(stepOfCommand('pc_01TEST:other')).toBeNull();
  });

  it('credits the float of the destination on completion', () => {
    expect(payoutPostCommand(base, 'complete').lines.map((line) => [line.direction, line.accountName, line.amount])).toEqual([
      ['DR', 'payout-clearing', '50.00'],
      ['CR', 'momo-float:airtel', '50.00'],
    ]);
    const bank = payoutPostCommand({ ...base, destination: { bankCode: 'dfcu', accountNumber: '1', accountName: 'A' } }, 'complete');
    expect(bank.lines[1]).toMatchObject({ direction: 'CR', accountName: 'bank-float:dfcu', amount: '50.00' });
  });

  it('refunds amount and fee on failure and reverses the fee lines, balanced, leaving zero lines out', () => {
    const failed = payoutPostCommand(base, 'fail');
    expect(balanced(failed.lines)).toBe(true);
    expect(
      failed.lines
        .filter((line) => line.accountName === 'wallet:owner-1')
        .reduce((total, line) => total.plus(line.amount), new BigNumber(0))
        .toFixed(2),
    ).toBe('51.50');
    const noCommission = payoutPostCommand({ ...base, commission: '0.00' }, 'fail');
    expect(noCommission.lines.map((line) => line.accountName)).toEqual([
      'payout-clearing',
      'wallet:owner-1',
      'revenue:fees',
      'wallet:owner-1',
    ]);
    expect(balanced(noCommission.lines)).toBe(true);
    const free = payoutPostCommand({ ...base, fee: '0.00', commission: '0.00' }, 'fail');
    expect(free.lines.map((line) => [line.direction, line.accountName, line.amount])).toEqual([
      ['DR', 'payout-clearing', '50.00'],
      ['CR', 'wallet:owner-1', '50.00'],
    ]);
  });

  it('refuses to build a completion without its destination', () => {
    const { destination: _destination, ...withoutDestination } = base;
    expect(() => payoutPostCommand(withoutDestination, 'complete')).toThrow(/destination/);
  });
});
