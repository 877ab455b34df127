import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  ACCOUNT_DECLARATIONS,
  ACCOUNT_FAMILIES,
  ACCOUNT_NAME_PATTERN,
  accountFamilyOf,
  ACCOUNTS,
  currencyNamedBy,
  FLOAT_RAILS,
  isKeyedAccount,
  JOURNAL_KINDS,
  postingLineSchema,
  RAIL_CLEARING,
  type SingleAccount,
  systemAccountNames,
} from '../src';

/** The rules as the ledger spelled them before the chart held them, kept here to compare against. */
const BEFORE = {
  namePattern:
    /^(wallet:[A-Za-z0-9._:@+-]{1,128}|momo-float:[A-Za-z0-9_-]{1,64}|bank-float:[A-Za-z0-9_-]{1,64}|suspense|revenue:fees|platform-commission|payout-clearing|asset:pool:[A-Z]{3}|asset:(momo|bank|cash)-clearing:[A-Z]{3})$/,
  natureOf(accountName: string): { normalSide: 'DR' | 'CR'; nonNegative: boolean } {
    if (accountName.startsWith('wallet:')) return { normalSide: 'CR', nonNegative: true };
    if (accountName.startsWith('momo-float:') || accountName.startsWith('bank-float:') || accountName.startsWith('asset:'))
      return { normalSide: 'DR', nonNegative: false };
    return { normalSide: 'CR', nonNegative: false };
  },
  currencyNamedBy(accountName: string): string | null {
    return /^asset:[a-z-]+:([A-Z]{3})$/.exec(accountName)?.[1] ?? null;
  },
  systemAccountNames: (currencyCode: string) => [
    'suspense',
    'revenue:fees',
    'platform-commission',
    'payout-clearing',
    `asset:pool:${currencyCode}`,
    `asset:momo-clearing:${currencyCode}`,
    `asset:bank-clearing:${currencyCode}`,
    `asset:cash-clearing:${currencyCode}`,
  ],
  withdrawalSource: /^(revenue:fees|asset:pool:[A-Z]{3})$/,
};

const KEYS = {
  'owner id': ['owner-1', 'a.b_c:d@e+f-g', 'x'.repeat(128)],
  'provider code': ['mtn', 'airtel_ug'],
  'bank code': ['stanbic', 'BANK-01'],
  currency: ['USD', 'UGX'],
} as const;

/** A name of every family, for each sample key of the keyed ones. */
const SAMPLE_NAMES = ACCOUNT_DECLARATIONS.flatMap((declaration) =>
  isKeyedAccount(declaration) ? KEYS[declaration.keyIs].map((key) => declaration.nameFor(key)) : [declaration.name],
);

describe('chart of accounts', () => {
  it('declares every family once, under its own key', () => {
    expect(ACCOUNT_DECLARATIONS.map((declaration) => declaration.family)).toEqual([...ACCOUNT_FAMILIES]);
    expect(Object.keys(ACCOUNTS).sort()).toEqual([...ACCOUNT_FAMILIES].sort());
  });

  it.each(ACCOUNT_DECLARATIONS.filter(isKeyedAccount).map((declaration) => [declaration.family, declaration] as const))(
    'round-trips %s names through their key',
    (_family, declaration) => {
      for (const key of KEYS[declaration.keyIs]) {
        const name = declaration.nameFor(key);
        expect(declaration.names(name)).toBe(true);
        expect(declaration.keyOf(name)).toBe(key);
        expect(accountFamilyOf(name)).toBe(declaration);
        expect(ACCOUNT_NAME_PATTERN.test(name)).toBe(true);
      }
      for (const other of ACCOUNT_DECLARATIONS.filter((candidate) => candidate !== declaration)) {
        const name = isKeyedAccount(other) ? other.nameFor(KEYS[other.keyIs][0]) : other.name;
        expect(declaration.names(name)).toBe(false);
        expect(declaration.keyOf(name)).toBeNull();
      }
    },
  );

  it('recognizes each single account by its whole name only', () => {
    for (const declaration of ACCOUNT_DECLARATIONS.filter((candidate): candidate is SingleAccount => !isKeyedAccount(candidate))) {
      expect(accountFamilyOf(declaration.name)).toBe(declaration);
      expect(accountFamilyOf(`${declaration.name}x`)).toBeUndefined();
    }
    expect(accountFamilyOf('equity')).toBeUndefined();
  });

  it('gives every family the normal side and floor the ledger gave its names before', () => {
    for (const name of SAMPLE_NAMES) {
      const declaration = accountFamilyOf(name);
      expect([name, declaration?.normalSide, !declaration?.mayGoBelowZero]).toEqual([
        name,
        BEFORE.natureOf(name).normalSide,
        BEFORE.natureOf(name).nonNegative,
      ]);
    }
  });

  it('keeps withdrawal holds from taking exactly the accounts they were kept from before', () => {
    const guarded = (kind: string, name: string): boolean =>
      (accountFamilyOf(name)?.notBelowZeroFor as readonly string[] | undefined)?.includes(kind) ?? false;
    for (const kind of JOURNAL_KINDS) {
      for (const name of SAMPLE_NAMES)
        expect([kind, name, guarded(kind, name)]).toEqual([kind, name, kind === 'withdrawal_hold' && BEFORE.withdrawalSource.test(name)]);
    }
    for (const declaration of ACCOUNT_DECLARATIONS)
      if (declaration.notBelowZeroFor.length > 0) expect(declaration.mayGoBelowZero).toBe(true);
  });

  it('lists the system accounts of a currency as the ledger provisioned them', () => {
    expect(systemAccountNames('UGX')).toEqual(BEFORE.systemAccountNames('UGX'));
  });

  it.each(FLOAT_RAILS)('names the clearing account of the %s rail as float deposits named it', (rail) => {
    expect(RAIL_CLEARING[rail].nameFor('USD')).toBe(`asset:${rail}-clearing:USD`);
  });

  it('admits exactly the names the contract admitted before', () => {
    const near = fc.oneof(
      fc.stringMatching(BEFORE.namePattern),
      fc.stringMatching(ACCOUNT_NAME_PATTERN),
      fc
        .tuple(
          fc.constantFrom(
            'wallet:',
            'momo-float:',
            'bank-float:',
            'asset:pool:',
            'asset:momo-clearing:',
            'asset:fx-clearing:',
            'revenue:',
            'suspense',
            '',
          ),
          fc.string({ maxLength: 6 }),
        )
        .map(([prefix, rest]) => prefix + rest),
    );
    fc.assert(
      fc.property(near, (name) => {
        expect(ACCOUNT_NAME_PATTERN.test(name)).toBe(BEFORE.namePattern.test(name));
        if (BEFORE.namePattern.test(name)) {
          expect(currencyNamedBy(name)).toBe(BEFORE.currencyNamedBy(name));
          expect(accountFamilyOf(name)).toBeDefined();
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('asks a walletId of wallet lines only', () => {
    const line = { direction: 'DR', amount: '1.00', currencyCode: 'USD' } as const;
    expect(postingLineSchema.safeParse({ ...line, accountName: ACCOUNTS.wallet.nameFor('o'), walletId: 'wl_1' }).success).toBe(true);
    expect(postingLineSchema.safeParse({ ...line, accountName: ACCOUNTS.wallet.nameFor('o') }).success).toBe(false);
    expect(postingLineSchema.safeParse({ ...line, accountName: ACCOUNTS.suspense.name, walletId: 'wl_1' }).success).toBe(false);
  });

  it('is the table docs/chart-of-accounts.md shows', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/chart-of-accounts.md'), 'utf8');
    const rows = doc
      .split('\n')
      .filter((line) => /^\| `/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    expect(rows).toEqual(
      ACCOUNT_DECLARATIONS.map((declaration) => [
        `\`${isKeyedAccount(declaration) ? `${declaration.prefix}<${declaration.keyIs}>` : declaration.name}\``,
        `\`${declaration.family}\``,
        declaration.normalSide,
        declaration.mayGoBelowZero ? 'allowed' : 'never',
        declaration.notBelowZeroFor.map((kind) => `\`${kind}\``).join(', '),
        declaration.why,
      ]),
    );
  });
});
