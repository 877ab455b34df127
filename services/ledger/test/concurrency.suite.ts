import BigNumber from 'bignumber.js';
import {
  depositCommand,
  ledgerInvariantViolations,
  type LedgerHarness,
  newTenantId,
  startLedgerHarness,
  transferCommand,
  walletBalance,
} from './support';
import type { RunningService } from '../src/main';

describe('concurrent sends from one wallet', () => {
  // Two ledger instances consume the same queue and write the same database, so commands are
  // decided in different processes and transactions at the same time.
  let ledger: LedgerHarness & { services: RunningService[] };
  beforeAll(async () => {
    ledger = await startLedgerHarness({ instances: 2, env: { LEDGER_BATCH_SIZE_MAX: '8' } });
  });
  afterAll(async () => {
    await ledger.close();
  });

  it('posts exactly 10 of 50 concurrent commands each debiting 10 from a wallet holding 100', async () => {
    const tenantId = newTenantId();
    expect(await ledger.client.request(depositCommand({ tenantId }, 'wl_hot', '100.00'))).toMatchObject({ status: 'posted' });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        ledger.client.request(transferCommand({ tenantId }, 'wl_hot', `wl_to_${index % 7}`, '10.00')),
      ),
    );
    expect(results.filter((result) => result.status === 'posted')).toHaveLength(10);
    expect(results.filter((result) => result.status === 'rejected').every((result) => result.error?.code === 'INSUFFICIENT_FUNDS')).toBe(
      true,
    );
    expect(await walletBalance(ledger.db, tenantId, 'wl_hot')).toBe('0');
    expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
  });

  it('keeps every balance exact when many wallets trade with each other and one hot fee account', async () => {
    const tenantId = newTenantId();
    const wallets = Array.from({ length: 10 }, (_, index) => `wl_m${index}`);
    await Promise.all(wallets.map((wallet) => ledger.client.request(depositCommand({ tenantId }, wallet, '20.00'))));
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, index) => {
        const from = wallets[index % wallets.length] as string;
        const to = wallets[(index * 7 + 3) % wallets.length] as string;
        return ledger.client.request(transferCommand({ tenantId }, from, to, '1.50', { fee: '0.05' }));
      }),
    );
    const posted = results.filter((result) => result.status === 'posted').length;
    expect(posted).toBeGreaterThan(0);
    const fees = await ledger.db('accounts').where({ tenant_id: tenantId, name: 'revenue:fees' }).first('balance');
    // Every posted transfer paid 0.05 into the hot account, no more and no less.
    expect(new BigNumber(fees.balance).eq(new BigNumber('0.05').times(posted))).toBe(true);
    const total = await ledger
      .db('accounts')
      .where({ tenant_id: tenantId })
      .whereNotNull('wallet_id')
      .sum<{ sum: string }[]>('balance as sum');
    expect(new BigNumber(total[0]?.sum ?? '0').plus(fees.balance).toFixed(2)).toBe('200.00');
    expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
  });
});
