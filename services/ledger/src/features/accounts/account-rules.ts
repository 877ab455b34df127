import type { Direction } from '@wallet/contracts';

/** The system accounts every tenant has per currency and environment (docs/decisions/money-movements.md). */
export function systemAccountNames(currencyCode: string): string[] {
  return [
    'suspense',
    'revenue:fees',
    'platform-commission',
    'payout-clearing',
    `asset:pool:${currencyCode}`,
    `asset:momo-clearing:${currencyCode}`,
    `asset:bank-clearing:${currencyCode}`,
    `asset:cash-clearing:${currencyCode}`,
  ];
}

export interface AccountNature {
  normalSide: Direction;
  nonNegative: boolean;
  isWallet: boolean;
}

/** Wallets and holding accounts are liabilities (credit normal); floats and `asset:*` are assets. */
export function natureOf(accountName: string): AccountNature {
  if (accountName.startsWith('wallet:')) return { normalSide: 'CR', nonNegative: true, isWallet: true };
  if (accountName.startsWith('momo-float:') || accountName.startsWith('bank-float:') || accountName.startsWith('asset:')) {
    return { normalSide: 'DR', nonNegative: false, isWallet: false };
  }
  return { normalSide: 'CR', nonNegative: false, isWallet: false };
}

/** `asset:pool:UGX` names its currency; such an account exists only in that currency. */
export function currencyNamedBy(accountName: string): string | null {
  const match = /^asset:[a-z-]+:([A-Z]{3})$/.exec(accountName);
  return match ? (match[1] as string) : null;
}
