import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import { ACCOUNT_DECLARATIONS, accountNameIn, ACCOUNTS, JOURNAL_KINDS, type JournalKind, type LedgerPostV1 } from '@wallet/contracts';
import { type AccountState, type DecodedCommand, planBatch, systemAccountKey, walletAccountKey } from './posting-planner';

const TENANT = 'tn_unit';

function wallet(walletId: string, balance: string, status: 'active' | 'frozen' = 'active'): AccountState {
  return {
    id: `acc_${walletId}`,
    num: '1',
    tenantId: TENANT,
    environment: 'test',
    currencyCode: 'USD',
    name: `wallet:${walletId}`,
    walletId,
    normalSide: 'CR',
    nonNegative: true,
    status,
    balance: new BigNumber(balance),
  };
}

function system(name: string, normalSide: 'DR' | 'CR'): AccountState {
  return {
    id: `acc_${name}`,
    num: '2',
    tenantId: TENANT,
    environment: 'test',
    currencyCode: 'USD',
    name,
    walletId: null,
    normalSide,
    nonNegative: false,
    status: 'active',
    balance: new BigNumber(0),
  };
}

function accounts(...states: AccountState[]): Map<string, AccountState> {
  return new Map(
    states.map((state) => [
      state.walletId ? walletAccountKey(TENANT, 'test', state.walletId) : systemAccountKey(TENANT, 'test', 'USD', state.name),
      state,
    ]),
  );
}

function transfer(id: string, from: string, to: string, amount: string): DecodedCommand {
  const command: LedgerPostV1 = {
    type: 'ledger.post.v1',
    commandId: id,
    tenantId: TENANT,
    environment: 'test',
    kind: 'transfer',
    reference: { type: 'transfer', id },
    lines: [
      { accountName: `wallet:${from}`, walletId: from, direction: 'DR', amount, currencyCode: 'USD' },
      { accountName: `wallet:${to}`, walletId: to, direction: 'CR', amount, currencyCode: 'USD' },
    ],
  };
  return { type: 'ledger.post.v1', commandId: id, payloadHash: `hash-${id}`, command };
}

const plan = (commands: DecodedCommand[], state: Map<string, AccountState>) =>
  planBatch({ commands, recorded: new Map(), accounts: state, existingEntries: new Set(), now: new Date('2026-11-22T10:00:00.000Z') });

function withdrawalHold(id: string, source: 'revenue:fees' | 'asset:pool:USD', amount: string): DecodedCommand {
  // The amount leaves the source: a debit of credit-normal fee revenue, a credit of the debit-normal pool.
  const fromFees = source === 'revenue:fees';
  const command: LedgerPostV1 = {
    type: 'ledger.post.v1',
    commandId: id,
    tenantId: TENANT,
    environment: 'test',
    kind: 'withdrawal_hold',
    reference: { type: 'withdrawal', id },
    lines: [
      { accountName: source, direction: fromFees ? 'DR' : 'CR', amount, currencyCode: 'USD' },
      { accountName: 'suspense', direction: fromFees ? 'CR' : 'DR', amount, currencyCode: 'USD' },
    ],
  };
  return { type: 'ledger.post.v1', commandId: id, payloadHash: `hash-${id}`, command };
}

/** An entry of `kind` moving `amount` out of `accountName` (the side that lowers it) into suspense. */
function lowering(kind: JournalKind, accountName: string, normalSide: 'DR' | 'CR', amount: string): DecodedCommand {
  const out = normalSide === 'DR' ? 'CR' : 'DR';
  const command: LedgerPostV1 = {
    type: 'ledger.post.v1',
    commandId: `${kind}-${accountName}`,
    tenantId: TENANT,
    environment: 'test',
    kind,
    reference: { type: 'rule', id: kind },
    lines: [
      { accountName, direction: out, amount, currencyCode: 'USD' },
      { accountName: ACCOUNTS.suspense.name, direction: normalSide, amount, currencyCode: 'USD' },
    ],
  };
  return { type: 'ledger.post.v1', commandId: command.commandId, payloadHash: `hash-${command.commandId}`, command };
}

const GUARDED = ACCOUNT_DECLARATIONS.filter((declaration) => declaration.notBelowZeroFor.length > 0).map(
  (declaration) => [declaration.family, declaration] as const,
);

describe('planBatch', () => {
  it('has accounts whose floor the chart declares for some kinds of entry', () => {
    expect(GUARDED.map(([family]) => family).sort()).toEqual(['feeRevenue', 'pool']);
  });

  it.each(GUARDED)(
    'refuses to take %s below zero by the kinds the chart names and only by them; those kinds may still empty it',
    (_family, declaration) => {
      const name = accountNameIn(declaration, 'USD');
      const outcomeOf = (kind: JournalKind, balance: string, amount: string) => {
        const state = accounts(
          { ...system(name, declaration.normalSide), balance: new BigNumber(balance) },
          system(ACCOUNTS.suspense.name, 'CR'),
        );
        const [outcome] = plan([lowering(kind, name, declaration.normalSide, amount)], state).outcomes;
        return outcome?.result.error ?? outcome?.result.status;
      };
      for (const kind of JOURNAL_KINDS) {
        const refused = (declaration.notBelowZeroFor as readonly JournalKind[]).includes(kind);
        expect([kind, outcomeOf(kind, '5', '5.01')]).toEqual([
          kind,
          refused ? { code: 'INSUFFICIENT_FUNDS', message: `${name} would go below zero` } : 'posted',
        ]);
        expect([kind, outcomeOf(kind, '5', '5')]).toEqual([kind, 'posted']);
      }
    },
  );

  it.each([
    ['revenue:fees', 'CR'],
    ['asset:pool:USD', 'DR'],
  ] as const)('refuses a withdrawal hold that would take %s below zero, in batch order', (source, normalSide) => {
    const state = accounts({ ...system(source, normalSide), balance: new BigNumber('10') }, system('suspense', 'CR'));
    const result = plan([withdrawalHold('1', source, '6'), withdrawalHold('2', source, '6'), withdrawalHold('3', source, '4')], state);
    expect(result.outcomes.map((outcome) => outcome.result.error?.code ?? outcome.result.status)).toEqual([
      'posted',
      'INSUFFICIENT_FUNDS',
      'posted',
    ]);
    expect(state.get(systemAccountKey(TENANT, 'test', 'USD', source))?.balance.toFixed()).toBe('0');
  });

  it('lets other entries take system accounts below zero as before', () => {
    const state = accounts(system('revenue:fees', 'CR'), system('suspense', 'CR'));
    const command = withdrawalHold('1', 'revenue:fees', '5') as Extract<DecodedCommand, { type: 'ledger.post.v1' }>;
    command.command.kind = 'adjustment';
    expect(plan([command], state).outcomes[0]?.result.status).toBe('posted');
  });

  it('decides commands in order against balances moved by the ones before', () => {
    const state = accounts(wallet('a', '10'), wallet('b', '0'), wallet('c', '0'));
    const result = plan([transfer('1', 'a', 'b', '10'), transfer('2', 'a', 'c', '1'), transfer('3', 'b', 'c', '4')], state);
    expect(result.outcomes.map((outcome) => outcome.result.error?.code ?? outcome.result.status)).toEqual([
      'posted',
      'INSUFFICIENT_FUNDS',
      'posted',
    ]);
    expect(result.entries).toHaveLength(2);
    expect([...state.values()].map((account) => account.balance.toFixed())).toEqual(['0', '6', '4']);
  });

  it('leaves every account untouched by a rejected command', () => {
    const state = accounts(wallet('a', '5'), wallet('b', '0'));
    const result = plan([transfer('1', 'a', 'b', '6')], state);
    expect(result.touchedAccounts).toEqual([]);
    expect(state.get(walletAccountKey(TENANT, 'test', 'a'))?.balance.toFixed()).toBe('5');
  });

  it('writes each line with the balance right after it', () => {
    const state = accounts(wallet('a', '10'), wallet('b', '0'), system('revenue:fees', 'CR'));
    const command = transfer('1', 'a', 'b', '3') as Extract<DecodedCommand, { type: 'ledger.post.v1' }>;
    command.command.lines.push(
      { accountName: 'wallet:a', walletId: 'a', direction: 'DR', amount: '0.5', currencyCode: 'USD' },
      { accountName: 'revenue:fees', direction: 'CR', amount: '0.5', currencyCode: 'USD' },
    );
    const [entry] = plan([command], state).entries;
    expect(entry?.lines.map((line) => line.balanceAfter.toFixed())).toEqual(['7', '3', '6.5', '0.5']);
  });

  it('treats a second command with the same id in one batch as its duplicate', () => {
    const state = accounts(wallet('a', '10'), wallet('b', '0'));
    const first = transfer('same', 'a', 'b', '2');
    const result = plan([first, first, { ...transfer('same', 'a', 'b', '3'), payloadHash: 'other' }], state);
    expect(result.outcomes.map((outcome) => [outcome.result.status, outcome.result.duplicate, outcome.isNew])).toEqual([
      ['posted', false, true],
      ['posted', true, false],
      ['rejected', false, false],
    ]);
    expect(result.outcomes[2]?.result.error?.code).toBe('COMMAND_ID_REUSED');
    expect(result.entries).toHaveLength(1);
  });

  it('never lets a wallet go below zero, whatever the order of transfers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 3000 })), {
          maxLength: 60,
        }),
        (moves) => {
          const state = accounts(wallet('w0', '20'), wallet('w1', '20'), wallet('w2', '20'));
          const commands = moves
            .filter(([from, to]) => from !== to)
            .map(([from, to, cents], index) =>
              transfer(String(index), `w${from}`, `w${to}`, new BigNumber(cents).shiftedBy(-2).toFixed(2)),
            );
          const result = plan(commands, state);
          const balances = [...state.values()].map((account) => account.balance);
          expect(balances.every((balance) => !balance.isNegative())).toBe(true);
          expect(BigNumber.sum(...balances).toFixed()).toBe('60');
          for (const entry of result.entries) {
            const debits = BigNumber.sum(0, ...entry.lines.filter((line) => line.direction === 'DR').map((line) => line.amount));
            const credits = BigNumber.sum(0, ...entry.lines.filter((line) => line.direction === 'CR').map((line) => line.amount));
            expect(debits.eq(credits)).toBe(true);
          }
        },
      ),
    );
  });
});
