import { analyticsRoutes, apiKeyRoutes, auditRoutes, reconciliationRoutes, requestLogRoutes, type RouteContract, teamRoutes, treasuryRoutes, walletRoutes } from '@wallet/contracts';
import { canSeeAny } from '../auth/scopes';

export interface NavigationItem {
  label: string;
  to: '/' | '/wallets' | '/team' | '/audit' | '/developers';
  /** The API routes the screen reads: it is listed when the session may call any of them. */
  reads: readonly RouteContract[];
}

/** The screens of the navigation, in order. A new screen adds its entry here with the routes it reads. */
export const NAVIGATION: readonly NavigationItem[] = [
  { label: 'Overview', to: '/', reads: [treasuryRoutes.balances, analyticsRoutes.tenant, reconciliationRoutes.tenant] },
  { label: 'Wallets', to: '/wallets', reads: [walletRoutes.list] },
  { label: 'Team', to: '/team', reads: [teamRoutes.list] },
  { label: 'Audit', to: '/audit', reads: [auditRoutes.list] },
  { label: 'Developers', to: '/developers', reads: [apiKeyRoutes.list, requestLogRoutes.list] },
];

export function visibleNavigation(scopes: readonly string[]): NavigationItem[] {
  return NAVIGATION.filter((item) => canSeeAny(scopes, item.reads));
}
