import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Outlet, redirect } from '@tanstack/react-router';
import { z } from 'zod';
import { isUnauthorized } from '../api/errors';
import { sessionQuery } from '../api/session';
import { ErrorState, LoadingState } from '../components/States';
import { walletFiltersSchema } from './filters';
import { Shell } from './Shell';
import { auditFiltersSchema, developersSearchSchema, teamFiltersSchema } from './team-filters';

export interface RouterContext {
  queryClient: QueryClient;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  errorComponent: ({ error }) => <ErrorState error={error} />,
});

/** Where to come back after signing in: a path of this app only, never another origin. */
const returnToSchema = z.object({ redirect: z.string().regex(/^\/(?!\/)/).optional().catch(undefined) });

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
  component: lazyRouteComponent(() => import('../pages/WalletPage'), 'WalletPage'),
});

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

const routeTree = rootRoute.addChildren([loginRoute, acceptInviteRoute, sessionRoute.addChildren([overviewRoute, walletsRoute, walletRoute, teamRoute, auditRoute, developersRoute])]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({ routeTree, context: { queryClient }, defaultPreload: 'intent', scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
