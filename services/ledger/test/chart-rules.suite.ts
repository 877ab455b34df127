import BigNumber from 'bignumber.js';
import {
  ACCOUNT_DECLARATIONS,
  ACCOUNT_FAMILIES,
  accountFamilyOf,
  accountNameIn,
  ACCOUNTS,
  type AccountDeclaration,
  type JournalKind,
  type LedgerPostV1,
} from '@wallet/contracts';
import {
  commandId,
  depositCommand,
  ledgerInvariantViolations,
  type LedgerHarness,
  newTenantId,
  startLedgerHarness,
  systemLine,
  transferCommand,
} from './support';

/** An entry of `kind` moving `amount` between `accountName` and suspense, raising or lowering the account. */
function move(tenantId: string, kind: JournalKind, declaration: AccountDeclaration, way: 'raise' | 'lower', amount: string): LedgerPostV1 {
  const name = accountNameIn(declaration, 'USD');
  const toAccount = way === 'raise' ? declaration.normalSide : declaration.normalSide === 'DR' ? 'CR' : 'DR';
  return {
    type: 'ledger.post.v1',
    commandId: commandId(kind),
    tenantId,
    environment: 'test',
    kind,
    reference: { type: 'chart_rule', id: commandId('ref') },
    lines: [systemLine(name, toAccount, amount), systemLine(ACCOUNTS.suspense.name, toAccount === 'DR' ? 'CR' : 'DR', amount)],
  };
}

describe('the chart of accounts in the running ledger', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    ledger = await startLedgerHarness();
  });
  afterAll(async () => {
    await ledger.close();
  });
  afterEach(async () => {
    expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
  });

  const balanceOf = async (tenantId: string, name: string): Promise<string> => {
    const row: { balance: string } | undefined = await ledger
      .db('accounts')
      .where({ tenant_id: tenantId, environment: 'test', name })
      .first('balance');
    return new BigNumber(row?.balance ?? 'NaN').toFixed();
  };

  it('opens every family of account a posting names with the normal side and floor the chart declares', async () => {
    const tenantId = newTenantId();
    // Wallets are opened by the deposit; every other family against suspense (a float keyed `USD` is a float all the same).
    const adjustments = ACCOUNT_DECLARATIONS.filter(
      (declaration) => declaration !== ACCOUNTS.wallet && declaration !== ACCOUNTS.suspense,
    ).map((declaration) => move(tenantId, 'adjustment', declaration, 'raise', '1.00'));
    const results = await ledger.client.requestMany([
      depositCommand({ tenantId }, 'wl_a', '10.00'),
      transferCommand({ tenantId }, 'wl_a', 'wl_b', '1.00', { fee: '0.10' }),
      ...adjustments,
    ]);
    expect(results.map((result) => result.error ?? result.status)).toEqual(results.map(() => 'posted'));

    const rows: Array<{ name: string; normal_side: string; non_negative: boolean }> = await ledger
      .db('accounts')
      .where({ tenant_id: tenantId })
      .select('name', 'normal_side', 'non_negative');
    const opened = rows.map((row) => {
      const declaration = accountFamilyOf(row.name);
      expect([row.name, row.normal_side, row.non_negative]).toEqual([row.name, declaration?.normalSide, !declaration?.mayGoBelowZero]);
      return declaration?.family;
    });
    expect([...new Set(opened)].sort()).toEqual([...ACCOUNT_FAMILIES].sort());
  });

  const guarded = ACCOUNT_DECLARATIONS.filter((declaration) => declaration.notBelowZeroFor.length > 0).map(
    (declaration) => [declaration.family, declaration] as const,
  );

  it.each(guarded)(
    'keeps %s from going below zero by the kinds the chart names, with the rejection of before, and lets other kinds take it there',
    async (_family, declaration) => {
      const tenantId = newTenantId();
      const name = accountNameIn(declaration, 'USD');
      const [kind] = declaration.notBelowZeroFor;
      if (kind === undefined) throw new Error('no declared kind');
      expect(declaration.notBelowZeroFor).not.toContain('adjustment');
      expect(await ledger.client.request(move(tenantId, 'adjustment', declaration, 'raise', '10.00'))).toMatchObject({ status: 'posted' });

      const refused = await ledger.client.request(move(tenantId, kind, declaration, 'lower', '10.01'));
      expect(refused).toMatchObject({
        status: 'rejected',
        journalEntryId: null,
        error: { code: 'INSUFFICIENT_FUNDS', message: `${name} would go below zero` },
      });
      expect(await balanceOf(tenantId, name)).toBe('10');

      expect(await ledger.client.request(move(tenantId, kind, declaration, 'lower', '10.00'))).toMatchObject({ status: 'posted' });
      expect(await ledger.client.request(move(tenantId, 'adjustment', declaration, 'lower', '1.00'))).toMatchObject({ status: 'posted' });
      expect(await balanceOf(tenantId, name)).toBe('-1');
    },
  );
});
