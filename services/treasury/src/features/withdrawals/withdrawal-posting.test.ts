import BigNumber from 'bignumber.js';
import { ledgerPostV1Schema } from '@wallet/contracts';
import { stepOfCommand, type WithdrawalStep, withdrawalCommandId, withdrawalPostCommand } from './withdrawal-posting';

const base = { id: 'pc_01TEST', tenantId: 'tn_unit', environment: 'live' as const, currencyCode: 'UGX', amount: '1500' };
const STEPS: WithdrawalStep[] = ['hold', 'settle', 'release'];

function lines(source: 'tenant_fees' | 'operating_float', step: WithdrawalStep): string[] {
  return withdrawalPostCommand({ ...base, source }, step).lines.map((line) => `${line.direction} ${line.accountName} ${line.amount}`);
}

describe('withdrawalPostCommand', () => {
  it('moves fee revenue to suspense, then to payout clearing or back', () => {
    expect(STEPS.map((step) => lines('tenant_fees', step))).toEqual([
      ['DR revenue:fees 1500', 'CR suspense 1500'],
      ['DR suspense 1500', 'CR payout-clearing 1500'],
      ['DR suspense 1500', 'CR revenue:fees 1500'],
    ]);
  });

  it('takes the operating float out of the pool by crediting it, and carries that side along', () => {
    expect(STEPS.map((step) => lines('operating_float', step))).toEqual([
      ['CR asset:pool:UGX 1500', 'DR suspense 1500'],
      ['CR suspense 1500', 'DR payout-clearing 1500'],
      ['CR suspense 1500', 'DR asset:pool:UGX 1500'],
    ]);
  });

  it.each(STEPS.flatMap((step) => [['tenant_fees', step] as const, ['operating_float', step] as const]))(
    '%s %s: a valid, balanced command whose id names its step',
    (source, step) => {
      const command = ledgerPostV1Schema.parse(withdrawalPostCommand({ ...base, source }, step));
      expect(command).toMatchObject({
        kind: `withdrawal_${step}`,
        reference: { type: 'withdrawal', id: base.id },
        commandId: withdrawalCommandId(base.id, step),
      });
      const total = (direction: 'DR' | 'CR') =>
        command.lines.filter((line) => line.direction === direction).reduce((sum, line) => sum.plus(line.amount), new BigNumber(0));
      expect(total('DR').eq(total('CR'))).toBe(true);
      expect(stepOfCommand(command.commandId)).toBe(step);
    },
  );

  it('names no step for another command id', () => {
    expect(stepOfCommand('fd_01TEST:post')).toBeNull();
  });
});
