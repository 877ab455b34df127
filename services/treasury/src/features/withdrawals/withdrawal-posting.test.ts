import BigNumber from 'bignumber.js';
import { ledgerPostV1Schema, WITHDRAWAL_METHODS } from '@wallet/contracts';
import { stepOfCommand, type WithdrawalStep, withdrawalCommandId, withdrawalPostCommand } from './withdrawal-posting';

const base = {
  id: 'pc_01TEST',
  tenantId: 'tn_unit',
  environment: 'live' as const,
  currencyCode: 'UGX',
  amount: '1500',
  payoutMethod: 'momo' as const,
};
const STEPS: WithdrawalStep[] = ['hold', 'settle', 'release', 'complete', 'fail'];

function lines(
  source: 'tenant_fees' | 'operating_float',
  step: WithdrawalStep,
  payoutMethod = base.payoutMethod as (typeof WITHDRAWAL_METHODS)[number],
): string[] {
  return withdrawalPostCommand({ ...base, source, payoutMethod }, step).lines.map(
    (line) => `${line.direction} ${line.accountName} ${line.amount}`,
  );
}

describe('withdrawalPostCommand', () => {
  it('moves fee revenue to suspense, then to payout clearing or back, then out through the rail or back again', () => {
    expect(STEPS.map((step) => lines('tenant_fees', step))).toEqual([
      ['DR revenue:fees 1500', 'CR suspense 1500'],
      ['DR suspense 1500', 'CR payout-clearing 1500'],
      ['DR suspense 1500', 'CR revenue:fees 1500'],
      ['DR payout-clearing 1500', 'CR asset:momo-clearing:UGX 1500'],
      ['DR payout-clearing 1500', 'CR revenue:fees 1500'],
    ]);
  });

  it('takes the operating float out of the pool by crediting it, and carries that side along to the rail or back to the pool', () => {
    expect(STEPS.map((step) => lines('operating_float', step))).toEqual([
      ['CR asset:pool:UGX 1500', 'DR suspense 1500'],
      ['CR suspense 1500', 'DR payout-clearing 1500'],
      ['CR suspense 1500', 'DR asset:pool:UGX 1500'],
      ['CR payout-clearing 1500', 'DR asset:momo-clearing:UGX 1500'],
      ['CR payout-clearing 1500', 'DR asset:pool:UGX 1500'],
    ]);
  });

  it.each(WITHDRAWAL_METHODS)(
    'completes a %s withdrawal through that rail’s clearing account, as float deposits over it come in',
    (method) => {
      expect(lines('tenant_fees', 'complete', method)).toEqual(['DR payout-clearing 1500', `CR asset:${method}-clearing:UGX 1500`]);
      expect(lines('operating_float', 'complete', method)).toEqual(['CR payout-clearing 1500', `DR asset:${method}-clearing:UGX 1500`]);
    },
  );

  it('gives the source back exactly what hold, settle and fail took through it, and leaves suspense and payout clearing at zero', () => {
    for (const source of ['tenant_fees', 'operating_float'] as const) {
      const net = new Map<string, BigNumber>();
      for (const step of ['hold', 'settle', 'fail'] as const)
        for (const line of withdrawalPostCommand({ ...base, source }, step).lines) {
          const signed = line.direction === 'DR' ? new BigNumber(line.amount) : new BigNumber(line.amount).negated();
          net.set(line.accountName, (net.get(line.accountName) ?? new BigNumber(0)).plus(signed));
        }
      expect([...net.values()].every((amount) => amount.isZero())).toBe(true);
    }
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
