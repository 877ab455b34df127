import {
  acceptInviteBodySchema,
  dashboardPrincipalSchema,
  dashboardSessionSchema,
  loginBodySchema,
  type RouteContract,
} from '@wallet/contracts';
import { z } from 'zod';

/**
 * The dashboard listener's own auth routes (docs: packages/contracts http/dashboard.ts). They
 * differ from the API's AUTH_ROUTES: the session token travels only in an HttpOnly cookie, so
 * login answers the session without it, and logout takes no body.
 */
export const dashboardAuthRoutes = {
  login: {
    method: 'post',
    path: '/v1/auth/login',
    summary: 'Sign in: sets the session and CSRF cookies',
    surface: 'public',
    service: 'identity',
    body: loginBodySchema,
    success: { status: 200, schema: dashboardSessionSchema },
  },
  acceptInvite: {
    method: 'post',
    path: '/v1/auth/accept-invite',
    summary: "Set an invited member's password and sign in",
    surface: 'public',
    service: 'identity',
    body: acceptInviteBodySchema,
    success: { status: 200, schema: dashboardSessionSchema },
  },
  session: {
    method: 'get',
    path: '/v1/auth/session',
    summary: "The cookie's session: who, and what its role allows now",
    surface: 'public',
    service: 'identity',
    success: { status: 200, schema: dashboardPrincipalSchema },
  },
  logout: {
    method: 'post',
    path: '/v1/auth/logout',
    summary: 'End the session and clear its cookies',
    surface: 'public',
    service: 'identity',
    success: { status: 200, schema: z.unknown() },
  },
} as const satisfies Record<string, RouteContract>;
