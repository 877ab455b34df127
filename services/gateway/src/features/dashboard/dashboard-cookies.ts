import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_CSRF_COOKIE, DASHBOARD_CSRF_HEADER, DASHBOARD_SESSION_COOKIE } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { parseCookie, type SetCookie, stringifySetCookie } from 'cookie';
import type { Request, Response } from 'express';

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/** Methods a browser sends cross-site without a preflight only when they cannot change anything here. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CookiePolicy {
  /** Secure cookies: set when the listener sits behind a TLS terminator; a request that came over TLS gets them anyway. */
  secure: boolean;
}

export function cookiesOf(request: Request): Record<string, string | undefined> {
  const header = request.headers.cookie;
  return header ? parseCookie(header) : {};
}

function appendCookie(response: Response, request: Request, policy: CookiePolicy, cookie: SetCookie): void {
  const secure = policy.secure || request.secure;
  response.append('Set-Cookie', stringifySetCookie({ path: '/', sameSite: 'strict', secure, ...cookie }));
}

/** The session token lives only here: HttpOnly, so no script of the page (or injected into it) can read it. */
export function setSessionCookie(response: Response, request: Request, policy: CookiePolicy, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  appendCookie(response, request, policy, { name: DASHBOARD_SESSION_COOKIE, value: token, httpOnly: true, maxAge });
}

/** The double-submit token: readable by the page, which echoes it in a header no cross-site form can send. */
export function setCsrfCookie(response: Response, request: Request, policy: CookiePolicy): void {
  appendCookie(response, request, policy, { name: DASHBOARD_CSRF_COOKIE, value: randomBytes(32).toString('base64url') });
}

export function clearSessionCookies(response: Response, request: Request, policy: CookiePolicy): void {
  appendCookie(response, request, policy, { name: DASHBOARD_SESSION_COOKIE, value: '', httpOnly: true, maxAge: 0 });
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A state-changing request must echo the CSRF cookie in its header, and, when the browser says
 * where it comes from, come from this listener's own origin. SameSite=Strict already keeps the
 * session cookie off cross-site requests; this covers what it does not (a login from another
 * site, an older browser, a sibling subdomain able to set cookies).
 */
export function refuseCrossSite(request: Request, policy: CookiePolicy): void {
  if (isSafeMethod(request.method)) return;
  const origin = request.headers.origin;
  const scheme = policy.secure || request.secure ? 'https' : 'http';
  if (origin !== undefined && origin !== `${scheme}://${request.headers.host ?? ''}`) {
    throw new AppError('CSRF_TOKEN_INVALID', 'This request comes from another site');
  }
  const expected = cookiesOf(request)[DASHBOARD_CSRF_COOKIE];
  const sent = request.get(DASHBOARD_CSRF_HEADER);
  if (!expected || !sent || !sameText(expected, sent)) {
    throw new AppError('CSRF_TOKEN_INVALID', `State-changing requests need the ${DASHBOARD_CSRF_HEADER} header, equal to the ${DASHBOARD_CSRF_COOKIE} cookie`);
  }
}
