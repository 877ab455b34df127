import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Outlet, redirect } from '@tanstack/react-router';
import { z } from 'zod';
import { isUnauthorized } from '../api/errors';
import { parseSearch, stringifySearch } from './search-params';
import { sessionQuery } from '../api/session';
import { ErrorState, LoadingState } from '../components/States';
import { accountFiltersSchema, accountPageSearchSchema, journalFiltersSchema } from '../books/journal';
import { feeScheduleListQuerySchema } from '@wallet/contracts';
import { statementPeriodSchema, walletFiltersSchema } from './filters';
import {
  approvalsSearchSchema,
  depositFiltersSchema,
  payoutFiltersSchema,
  transferFiltersSchema,
  treasuryFiltersSchema,
} from './money-filters';
import { visibleNavigation } from './navigation';
import { SEARCH_MAX_LENGTH } from './search';
import { Shell } from './Shell';
import { auditFiltersSchema, deliveryFiltersSchema, developersSearchSchema, teamFiltersSchema } from './team-filters';

export interface RouterContext {
  queryClient: QueryClient;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  errorComponent: ({ error }) => <ErrorState error={error} />,
});

/** Where to come back after signing in: a path of this app only, never another origin. */
const returnToSchema = z.object({
  redirect: z
    .string()
    .regex(/^\/(?!\/)/)
    .optional()
    .catch(undefined),
});

export const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: returnToSchema,
  component: lazyRouteComponent(() => import('../pages/LoginPage'), 'LoginPage'),
});

export const acceptInviteRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/accept-invite',
  validateSearch: z.object({ token: z.string().optional().catch(undefined) }),
  component: lazyRouteComponent(() => import('../pages/AcceptInvitePage'), 'AcceptInvitePage'),
});

/** Every screen behind a session: without one (401) the app goes to its login page and back afterwards. */
export const sessionRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: '_session',
  beforeLoad: async ({ context, location }) => {
    try {
      return { principal: await context.queryClient.ensureQueryData(sessionQuery) };
    } catch (error) {
      if (isUnauthorized(error)) throw redirect({ to: '/login', search: { redirect: location.href } });
      throw error;
    }
  },
  component: Shell,
  pendingComponent: () => <LoadingState label="Checking your session" />,
});

export const overviewRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/',
  // A role that reads none of the overview's figures (a developer) lands on its first screen instead.
  beforeLoad: ({ context }) => {
    const first = visibleNavigation(context.principal.scopes)[0];
    if (first && first.to !== '/') throw redirect({ to: first.to });
  },
  component: lazyRouteComponent(() => import('../pages/OverviewPage'), 'OverviewPage'),
});

export const walletsRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/wallets',
  validateSearch: walletFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/WalletsPage'), 'WalletsPage'),
});

export const walletRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/wallets/$walletId',
  validateSearch: statementPeriodSchema,
  component: lazyRouteComponent(() => import('../pages/WalletPage'), 'WalletPage'),
});

// Money movements, approvals and treasury.
export const depositsRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/deposits',
  validateSearch: depositFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/DepositsPage'), 'DepositsPage'),
});
export const depositRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/deposits/$depositId',
  component: lazyRouteComponent(() => import('../pages/DepositPage'), 'DepositPage'),
});
export const transfersRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/transfers',
  validateSearch: transferFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/TransfersPage'), 'TransfersPage'),
});
export const transferRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/transfers/$transferId',
  component: lazyRouteComponent(() => import('../pages/TransferPage'), 'TransferPage'),
});
export const payoutsRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/payouts',
  validateSearch: payoutFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/PayoutsPage'), 'PayoutsPage'),
});
export const payoutRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/payouts/$payoutId',
  component: lazyRouteComponent(() => import('../pages/PayoutPage'), 'PayoutPage'),
});
export const approvalsRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/approvals',
  validateSearch: approvalsSearchSchema,
  component: lazyRouteComponent(() => import('../pages/ApprovalsPage'), 'ApprovalsPage'),
});
export const treasuryRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/treasury',
  validateSearch: treasuryFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/TreasuryPage'), 'TreasuryPage'),
});
export const withdrawalRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/treasury/withdrawals/$withdrawalId',
  component: lazyRouteComponent(() => import('../pages/WithdrawalPage'), 'WithdrawalPage'),
});
const moneyRoutes = [
  depositsRoute,
  depositRoute,
  transfersRoute,
  transferRoute,
  payoutsRoute,
  payoutRoute,
  approvalsRoute,
  treasuryRoute,
  withdrawalRoute,
];

export const teamRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/team',
  validateSearch: teamFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/TeamPage'), 'TeamPage'),
});

export const auditRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/audit',
  validateSearch: auditFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/AuditPage'), 'AuditPage'),
});

export const developersRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/developers',
  validateSearch: developersSearchSchema,
  component: lazyRouteComponent(() => import('../pages/DevelopersPage'), 'DevelopersPage'),
});

export const webhookEndpointRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/developers/webhooks/$endpointId',
  validateSearch: deliveryFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/WebhookEndpointPage'), 'WebhookEndpointPage'),
});

export const eventRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/developers/events/$eventId',
  component: lazyRouteComponent(() => import('../pages/EventPage'), 'EventPage'),
});

// The books: journal, ledger accounts, reconciliation and fees.
export const journalRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/journal',
  validateSearch: journalFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/JournalPage'), 'JournalPage'),
});

export const journalEntryRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/journal/$entryId',
  component: lazyRouteComponent(() => import('../pages/JournalEntryPage'), 'JournalEntryPage'),
});

export const accountsRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/accounts',
  validateSearch: accountFiltersSchema,
  component: lazyRouteComponent(() => import('../pages/AccountsPage'), 'AccountsPage'),
});

export const accountRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/accounts/$accountName',
  validateSearch: accountPageSearchSchema,
  component: lazyRouteComponent(() => import('../pages/AccountPage'), 'AccountPage'),
});

export const reconciliationRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/reconciliation',
  // The full run being followed: in the URL, so a reload or a shared link keeps following it.
  validateSearch: z.object({ run: z.string().min(1).max(64).optional() }),
  component: lazyRouteComponent(() => import('../pages/ReconciliationPage'), 'ReconciliationPage'),
});

export const workbenchRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/reconciliation/workbench',
  // The slip and the line chosen for a match by hand: in the URL, so a mismatch's link opens its line chosen.
  validateSearch: z.object({ line: z.string().max(20).optional().catch(undefined), slip: z.string().max(64).optional().catch(undefined) }),
  component: lazyRouteComponent(() => import('../pages/WorkbenchPage'), 'WorkbenchPage'),
});

export const feesRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/fees',
  validateSearch: feeScheduleListQuerySchema.pick({ status: true }),
  component: lazyRouteComponent(() => import('../pages/FeesPage'), 'FeesPage'),
});

export const feeScheduleRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/fees/$scheduleId',
  component: lazyRouteComponent(() => import('../pages/FeeSchedulePage'), 'FeeSchedulePage'),
});

const booksRoutes = [
  journalRoute,
  journalEntryRoute,
  accountsRoute,
  accountRoute,
  reconciliationRoute,
  workbenchRoute,
  feesRoute,
  feeScheduleRoute,
];

/** Any other address, inside the signed-in frame, so the navigation stays on screen. */
export const searchRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '/search',
  validateSearch: z.object({ q: z.string().max(SEARCH_MAX_LENGTH).optional() }),
  component: lazyRouteComponent(() => import('../pages/SearchPage'), 'SearchPage'),
});

export const notFoundRoute = createRoute({
  getParentRoute: () => sessionRoute,
  path: '$',
  component: lazyRouteComponent(() => import('../pages/NotFoundPage'), 'NotFoundPage'),
});

const routeTree = rootRoute.addChildren([
  loginRoute,
  acceptInviteRoute,
  sessionRoute.addChildren([
    overviewRoute,
    walletsRoute,
    walletRoute,
    teamRoute,
    auditRoute,
    developersRoute,
    webhookEndpointRoute,
    eventRoute,
    ...moneyRoutes,
    ...booksRoutes,
    searchRoute,
    notFoundRoute,
  ]),
]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: 'intent',
    scrollRestoration: true,
    // A screen's own failure (an address whose filters it refuses) shows inside the frame, the navigation kept.
    defaultErrorComponent: ({ error }) => <ErrorState error={error} />,
    parseSearch,
    stringifySearch,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
