import { DASHBOARD_CSRF_COOKIE, DASHBOARD_CSRF_HEADER, DASHBOARD_SESSION_COOKIE } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { parseCookie, type SetCookie, stringifySetCookie } from 'cookie';
import type { Request, Response } from 'express';
import { type CsrfTokens, sameText } from './dashboard-csrf';

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/** Methods a browser sends cross-site without a preflight only when they cannot change anything here. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CookiePolicy {
  /** Secure cookies: set when the listener sits behind a TLS terminator; a request that came over TLS gets them anyway. */
  secure: boolean;
  /** What CSRF tokens this listener issues and takes. */
  csrf: CsrfTokens;
}

export function cookiesOf(request: Request): Record<string, string | undefined> {
  const header = request.headers.cookie;
  return header ? parseCookie(header) : {};
}

/** A cookie set twice in one answer goes out once, as last set (an expired session's answer keeps its CSRF token, then issues one). */
function appendCookie(response: Response, request: Request, policy: CookiePolicy, cookie: SetCookie): void {
  const secure = policy.secure || request.secure;
  const earlier = response.getHeader('Set-Cookie');
  const lines = earlier === undefined ? [] : Array.isArray(earlier) ? earlier : [String(earlier)];
  const others = lines.filter((line) => !line.startsWith(`${cookie.name}=`));
  response.setHeader('Set-Cookie', [...others, stringifySetCookie({ path: '/', sameSite: 'strict', secure, ...cookie })]);
}

/** The session token lives only here: HttpOnly, so no script of the page (or injected into it) can read it. */
export function setSessionCookie(response: Response, request: Request, policy: CookiePolicy, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  appendCookie(response, request, policy, { name: DASHBOARD_SESSION_COOKIE, value: token, httpOnly: true, maxAge });
}

/** The CSRF token, readable by the page, which echoes it in a header no cross-site form can send. */
export function setCsrfCookie(response: Response, request: Request, policy: CookiePolicy, token: string): void {
  appendCookie(response, request, policy, { name: DASHBOARD_CSRF_COOKIE, value: token });
}

/** Signed out: the session cookie goes, and the page gets a token of before login, so that its login form works at once. */
export function clearSessionCookies(response: Response, request: Request, policy: CookiePolicy): void {
  appendCookie(response, request, policy, { name: DASHBOARD_SESSION_COOKIE, value: '', httpOnly: true, maxAge: 0 });
  setCsrfCookie(response, request, policy, policy.csrf.issue());
}

/**
 * On a safe request, the CSRF cookie this browser needs when it lacks it or holds another: its
 * session's token, or a fresh issued one without a session. So a browser signed in before
 * tokens were bound to sessions, or holding a token an attacker planted, heals on its next GET.
 */
export function keepCsrfCookie(request: Request, response: Response, policy: CookiePolicy): void {
  const cookies = cookiesOf(request);
  const current = cookies[DASHBOARD_CSRF_COOKIE];
  const session = cookies[DASHBOARD_SESSION_COOKIE];
  if (session) {
    const bound = policy.csrf.ofSession(session);
    if (current !== bound) setCsrfCookie(response, request, policy, bound);
  } else if (current === undefined || !policy.csrf.isIssued(current)) {
    setCsrfCookie(response, request, policy, policy.csrf.issue());
  }
}

/** With a session only its own token passes; without one, an issued token sent in both the cookie and the header. */
function csrfTokenHolds(request: Request, policy: CookiePolicy, sent: string): boolean {
  const cookies = cookiesOf(request);
  const session = cookies[DASHBOARD_SESSION_COOKIE];
  if (session) return sameText(sent, policy.csrf.ofSession(session));
  const cookie = cookies[DASHBOARD_CSRF_COOKIE];
  return cookie !== undefined && sameText(cookie, sent) && policy.csrf.isIssued(sent);
}

/**
 * A state-changing request must send the CSRF token of its session (or, before one, a token
 * this gateway issued) in its header, and, when the browser says where it comes from, come from
 * this listener's own origin. SameSite=Strict already keeps the session cookie off cross-site
 * requests; this covers what it does not (a login from another site, an older browser, a
 * sibling subdomain able to set cookies).
 */
export function refuseCrossSite(request: Request, policy: CookiePolicy): void {
  if (isSafeMethod(request.method)) return;
  const origin = request.headers.origin;
  const scheme = policy.secure || request.secure ? 'https' : 'http';
  if (origin !== undefined && origin !== `${scheme}://${request.headers.host ?? ''}`) {
    throw new AppError('CSRF_TOKEN_INVALID', 'This request comes from another site');
  }
  const sent = request.get(DASHBOARD_CSRF_HEADER);
  if (!sent || !csrfTokenHolds(request, policy, sent)) {
    const needed = `the ${DASHBOARD_CSRF_HEADER} header with the token of the ${DASHBOARD_CSRF_COOKIE} cookie`;
    throw new AppError('CSRF_TOKEN_INVALID', `State-changing requests need ${needed}`);
  }
}
