import {
  analyticsRoutes,
  apiKeyRoutes,
  auditRoutes,
  depositRoutes,
  eventRoutes,
  feeRoutes,
  ledgerRoutes,
  payoutRoutes,
  reconciliationRoutes,
  requestLogRoutes,
  type RouteContract,
  teamRoutes,
  transferRoutes,
  treasuryRoutes,
  walletRoutes,
  webhookEndpointRoutes,
  withdrawalRoutes,
} from '@wallet/contracts';
import { canSeeAny } from '../auth/scopes';

export interface NavigationItem {
  label: string;
  to:
    | '/'
    | '/wallets'
    | '/deposits'
    | '/transfers'
    | '/payouts'
    | '/approvals'
    | '/treasury'
    | '/journal'
    | '/accounts'
    | '/reconciliation'
    | '/fees'
    | '/team'
    | '/audit'
    | '/developers';
  /** The API routes the screen reads: it is listed when the session may call any of them. */
  reads: readonly RouteContract[];
}

/** The screens of the navigation, in order. A new screen adds its entry here with the routes it reads. */
export const NAVIGATION: readonly NavigationItem[] = [
  { label: 'Overview', to: '/', reads: [treasuryRoutes.balances, analyticsRoutes.tenant, reconciliationRoutes.tenant] },
  { label: 'Wallets', to: '/wallets', reads: [walletRoutes.list] },
  { label: 'Deposits', to: '/deposits', reads: [depositRoutes.list] },
  { label: 'Transfers', to: '/transfers', reads: [transferRoutes.list] },
  { label: 'Payouts', to: '/payouts', reads: [payoutRoutes.list] },
  { label: 'Approvals', to: '/approvals', reads: [payoutRoutes.list, withdrawalRoutes.list] },
  { label: 'Treasury', to: '/treasury', reads: [treasuryRoutes.balances, treasuryRoutes.listFloatDeposits, withdrawalRoutes.list] },
  { label: 'Journal', to: '/journal', reads: [ledgerRoutes.journal] },
  { label: 'Ledger accounts', to: '/accounts', reads: [ledgerRoutes.accounts] },
  { label: 'Reconciliation', to: '/reconciliation', reads: [reconciliationRoutes.tenant, reconciliationRoutes.getTenantRun] },
  { label: 'Fees', to: '/fees', reads: [feeRoutes.list, feeRoutes.quote] },
  { label: 'Team', to: '/team', reads: [teamRoutes.list] },
  { label: 'Audit', to: '/audit', reads: [auditRoutes.list] },
  {
    label: 'Developers',
    to: '/developers',
    reads: [apiKeyRoutes.list, webhookEndpointRoutes.list, eventRoutes.list, requestLogRoutes.list],
  },
];

export function visibleNavigation(scopes: readonly string[]): NavigationItem[] {
  return NAVIGATION.filter((item) => canSeeAny(scopes, item.reads));
}
