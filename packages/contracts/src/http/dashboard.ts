import type { z } from 'zod';
import { sessionPrincipalSchema, sessionSchema } from './team';

/**
 * The dashboard's own listener (docs/dashboard.md): the browser holds its session only as an
 * HttpOnly cookie, never a token or an API key, and proves each state-changing request came from
 * the dashboard's own pages by echoing the readable CSRF cookie in a header (double submit).
 */
export const DASHBOARD_SESSION_COOKIE = 'wallet_session';
export const DASHBOARD_CSRF_COOKIE = 'wallet_csrf';
export const DASHBOARD_CSRF_HEADER = 'x-csrf-token';

/** What a login or an accepted invite answers on the dashboard listener: the session, its token in a cookie instead. */
export const dashboardSessionSchema = sessionSchema.omit({ token: true });
export type DashboardSession = z.infer<typeof dashboardSessionSchema>;

/** `GET /v1/auth/session` on the dashboard listener: who the cookie's session is, and what its role allows now (not its internal id). */
export const dashboardPrincipalSchema = sessionPrincipalSchema.omit({ sessionId: true });
export type DashboardPrincipal = z.infer<typeof dashboardPrincipalSchema>;
