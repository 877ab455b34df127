import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The dashboard listener's CSRF tokens (docs/decisions/dashboard-sessions.md). A double submit
 * alone passes any equal cookie and header, and whoever can set a cookie on the page's domain (a
 * sibling subdomain, a man in the middle of plain HTTP) chooses both. So a session has exactly
 * one token, a MAC of the session's token, which nobody can compute without the key and which is
 * worth nothing with any other session; before a session (login, accept-invite) a token passes
 * only if this gateway issued it: a random part and its MAC.
 */
export interface CsrfTokens {
  /** The one token a request with this session cookie must send. */
  ofSession(sessionToken: string): string;
  /** A fresh token for a browser without a session. */
  issue(): string;
  /** Whether `token` is one `issue` made, on any instance. */
  isIssued(token: string): boolean;
}

/** Constant-time equality of two texts of any length. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The key is derived from the secret every gateway instance shares (as cursors' are): each checks what any issued. */
export function csrfTokens(internalTokenSecret: string): CsrfTokens {
  const key = createHmac('sha256', internalTokenSecret).update('wallet dashboard csrf v1').digest();
  // A label per use, so that no session's token is ever an issued token's MAC, or the other way round.
  const mac = (label: 'session' | 'issued', text: string): string =>
    createHmac('sha256', key).update(`${label}\n${text}`).digest('base64url');
  return {
    ofSession: (sessionToken) => mac('session', sessionToken),
    issue: () => {
      const random = randomBytes(32).toString('base64url');
      return `${random}.${mac('issued', random)}`;
    },
    isIssued: (token) => {
      const dot = token.indexOf('.');
      return dot > 0 && sameText(token.slice(dot + 1), mac('issued', token.slice(0, dot)));
    },
  };
}
