import { accountFamilyOf, accountNamePattern, ACCOUNT_DECLARATIONS, ACCOUNTS, type Direction } from '@wallet/contracts';

export { currencyNamedBy, systemAccountNames } from '@wallet/contracts';

export interface AccountNature {
  normalSide: Direction;
  nonNegative: boolean;
  isWallet: boolean;
}

/** How the ledger opens an account: its normal side and whether it may go below zero, as the chart declares. */
export function natureOf(accountName: string): AccountNature {
  const declaration = accountFamilyOf(accountName);
  // The contract's name pattern admits nothing the chart does not declare.
  if (declaration === undefined) throw new Error(`${accountName} is no account of the chart`);
  return { normalSide: declaration.normalSide, nonNegative: !declaration.mayGoBelowZero, isWallet: declaration === ACCOUNTS.wallet };
}

/** Per journal kind, a whole-name pattern of the accounts the chart says it may not take below zero. */
function notOverdrawnByKind(): ReadonlyMap<string, RegExp> {
  const byKind = new Map<string, string[]>();
  for (const declaration of ACCOUNT_DECLARATIONS) {
    for (const kind of declaration.notBelowZeroFor) byKind.set(kind, [...(byKind.get(kind) ?? []), accountNamePattern(declaration)]);
  }
  return new Map([...byKind].map(([kind, patterns]) => [kind, new RegExp(`^(?:${patterns.join('|')})$`)]));
}

const NOT_OVERDRAWN_BY_KIND = notOverdrawnByKind();

/**
 * Accounts that may run negative in general (a float can be overdrawn by the rail's timing) may
 * still be kept at zero by the entries of some kinds: a tenant can only withdraw what its
 * source holds. The planner asks this per line under the row locks that serialize every
 * posting, so two entries racing for the same funds cannot both pass; one map lookup and one
 * anchored test, no allocation.
 */
export function mayNotOverdraw(kind: string, accountName: string): boolean {
  const names = NOT_OVERDRAWN_BY_KIND.get(kind);
  return names !== undefined && names.test(accountName);
}
