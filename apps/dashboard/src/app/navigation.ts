import { analyticsRoutes, reconciliationRoutes, type RouteContract, treasuryRoutes, walletRoutes } from '@wallet/contracts';
import { canSeeAny } from '../auth/scopes';

export interface NavigationItem {
  label: string;
  to: '/' | '/wallets';
  /** The API routes the screen reads: it is listed when the session may call any of them. */
  reads: readonly RouteContract[];
}

/** The screens of the navigation, in order. A new screen adds its entry here with the routes it reads. */
export const NAVIGATION: readonly NavigationItem[] = [
  { label: 'Overview', to: '/', reads: [treasuryRoutes.balances, analyticsRoutes.tenant, reconciliationRoutes.tenant] },
  { label: 'Wallets', to: '/wallets', reads: [walletRoutes.list] },
];

export function visibleNavigation(scopes: readonly string[]): NavigationItem[] {
  return NAVIGATION.filter((item) => canSeeAny(scopes, item.reads));
}
