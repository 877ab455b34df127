import { analyticsRoutes, feeRoutes, ledgerRoutes, reconciliationRoutes, type RouteContract, treasuryRoutes, walletRoutes } from '@wallet/contracts';
import { canSeeAny } from '../auth/scopes';

export interface NavigationItem {
  label: string;
  to: '/' | '/wallets' | '/journal' | '/accounts' | '/reconciliation' | '/fees';
  /** The API routes the screen reads: it is listed when the session may call any of them. */
  reads: readonly RouteContract[];
}

/** The screens of the navigation, in order. A new screen adds its entry here with the routes it reads. */
export const NAVIGATION: readonly NavigationItem[] = [
  { label: 'Overview', to: '/', reads: [treasuryRoutes.balances, analyticsRoutes.tenant, reconciliationRoutes.tenant] },
  { label: 'Wallets', to: '/wallets', reads: [walletRoutes.list] },
  { label: 'Journal', to: '/journal', reads: [ledgerRoutes.journal] },
  { label: 'Ledger accounts', to: '/accounts', reads: [ledgerRoutes.accounts] },
  { label: 'Reconciliation', to: '/reconciliation', reads: [reconciliationRoutes.tenant, reconciliationRoutes.getTenantRun] },
  { label: 'Fees', to: '/fees', reads: [feeRoutes.list, feeRoutes.quote] },
];

export function visibleNavigation(scopes: readonly string[]): NavigationItem[] {
  return NAVIGATION.filter((item) => canSeeAny(scopes, item.reads));
}
