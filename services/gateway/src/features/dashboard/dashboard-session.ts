import {
  DASHBOARD_SESSION_COOKIE,
  type DashboardPrincipal,
  dashboardPrincipalSchema,
  type RouteContract,
  SIGNING_HEADERS,
  sessionSchema,
} from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { IdentityKeysClient } from '../auth/identity-keys-client';
import type { UpstreamResponse } from '../proxy/upstream-client';
import {
  clearSessionCookies,
  type CookiePolicy,
  cookiesOf,
  isSafeMethod,
  keepCsrfCookie,
  refuseCrossSite,
  setCsrfCookie,
  setSessionCookie,
} from './dashboard-cookies';

/** The routes whose answer is a new session: on this listener its token goes into the cookie, not the page. */
export const SESSION_OPENING_PATHS: ReadonlySet<string> = new Set(['/v1/auth/login', '/v1/auth/accept-invite']);

/** What the dashboard listener routes: the tenant API and the routes that open a session. */
export function isDashboardRoute(route: RouteContract): boolean {
  return route.surface === 'tenant' || SESSION_OPENING_PATHS.has(route.path);
}

/**
 * Every other way of proving who one is: the dashboard listener knows only its cookie, so a page
 * (or a script injected into one) cannot act with an API key, and a session acts as its member.
 */
const FOREIGN_CREDENTIAL_HEADERS = [
  'authorization',
  'x-api-key',
  'x-system-key',
  ...Object.values(SIGNING_HEADERS).filter((name) => name !== SIGNING_HEADERS.idempotencyKey),
];

/**
 * In front of the API routes: foreign credentials dropped, cross-site writes refused, and the
 * cookie's session handed to the authentication every API request goes through. A safe
 * request gets the CSRF cookie its browser should hold, if it holds another or none.
 */
export function cookieCredentials(policy: CookiePolicy): RequestHandler {
  return (request, response, next) => {
    for (const name of FOREIGN_CREDENTIAL_HEADERS) delete request.headers[name];
    refuseCrossSite(request, policy);
    if (isSafeMethod(request.method)) keepCsrfCookie(request, response, policy);
    const token = cookiesOf(request)[DASHBOARD_SESSION_COOKIE];
    if (token) request.headers.authorization = `Bearer ${token}`;
    next();
  };
}

/** A login or accepted invite: the token set as the HttpOnly cookie (and the CSRF token of the new session), the answer without it. */
export function sessionIntoCookie(policy: CookiePolicy) {
  return (route: RouteContract, answer: UpstreamResponse, request: Request, response: Response): UpstreamResponse => {
    if (!SESSION_OPENING_PATHS.has(route.path) || answer.status !== 200) return answer;
    const session = sessionSchema.parse(JSON.parse(answer.body.toString('utf8')));
    const { token, ...withoutToken } = session;
    setSessionCookie(response, request, policy, token, new Date(session.expiresAt));
    setCsrfCookie(response, request, policy, policy.csrf.ofSession(token));
    return { ...answer, body: Buffer.from(JSON.stringify(withoutToken)) };
  };
}

function sessionToken(request: Request): string {
  const token = cookiesOf(request)[DASHBOARD_SESSION_COOKIE];
  if (!token) throw new AppError('INVALID_SESSION', 'Not signed in');
  return token;
}

/** `GET /v1/auth/session` (who the cookie is, and what the member's role allows now) and `POST /v1/auth/logout`. */
export function dashboardSessionRouter(
  identity: Pick<IdentityKeysClient, 'authenticateSession' | 'endSession'>,
  policy: CookiePolicy,
): Router {
  const router = Router();
  router.get('/v1/auth/session', async (request, response) => {
    let principal: DashboardPrincipal;
    try {
      principal = dashboardPrincipalSchema.parse(await identity.authenticateSession(sessionToken(request)));
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_SESSION') clearSessionCookies(response, request, policy);
      throw error;
    }
    response.setHeader('Cache-Control', 'no-store');
    response.json(principal);
  });
  router.post('/v1/auth/logout', async (request, response) => {
    const token = cookiesOf(request)[DASHBOARD_SESSION_COOKIE];
    if (token) await identity.endSession(token);
    clearSessionCookies(response, request, policy);
    response.json({ revoked: true });
  });
  return router;
}
