import fc from 'fast-check';
import { ACCOUNT_NAME_PATTERN, JOURNAL_KINDS } from '@wallet/contracts';
import { mayNotOverdraw, natureOf } from './account-rules';

/** The ledger's rules as it spelled them before the chart of accounts held them. */
function natureBefore(accountName: string): ReturnType<typeof natureOf> {
  if (accountName.startsWith('wallet:')) return { normalSide: 'CR', nonNegative: true, isWallet: true };
  if (accountName.startsWith('momo-float:') || accountName.startsWith('bank-float:') || accountName.startsWith('asset:'))
    return { normalSide: 'DR', nonNegative: false, isWallet: false };
  return { normalSide: 'CR', nonNegative: false, isWallet: false };
}
const guardedBefore = (kind: string, accountName: string): boolean =>
  kind === 'withdrawal_hold' && /^(revenue:fees|asset:pool:[A-Z]{3})$/.test(accountName);

const accountNames = fc.stringMatching(ACCOUNT_NAME_PATTERN);

describe('account rules read from the chart of accounts', () => {
  it('open every account the contract admits with the nature it was opened with before', () => {
    fc.assert(
      fc.property(accountNames, (name) => {
        expect(natureOf(name)).toEqual(natureBefore(name));
      }),
      { numRuns: 3000 },
    );
  });

  it('keep the kinds of entry from taking accounts below zero exactly where they were kept before', () => {
    fc.assert(
      fc.property(fc.constantFrom(...JOURNAL_KINDS), accountNames, (kind, name) => {
        expect(mayNotOverdraw(kind, name)).toBe(guardedBefore(kind, name));
      }),
      { numRuns: 3000 },
    );
    expect(mayNotOverdraw('withdrawal_hold', 'revenue:fees')).toBe(true);
    expect(mayNotOverdraw('withdrawal_hold', 'asset:pool:UGX')).toBe(true);
  });

  it('refuse to guess the nature of a name outside the chart', () => {
    expect(() => natureOf('equity:retained')).toThrow('equity:retained is no account of the chart');
  });
});
