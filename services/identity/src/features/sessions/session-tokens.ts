import { createHash, randomBytes } from 'node:crypto';
import { newId } from '@wallet/contracts';

const SESSION_TOKEN_BYTES = 32;
const SESSION_TOKEN_PREFIX = 'sess_';
/** `sess_` and the base64url of 32 bytes, which is 43 characters without padding. */
const SESSION_TOKEN_PATTERN = /^sess_[A-Za-z0-9_-]{43}$/;

export interface SessionToken {
  /** Goes only into the login answer; never stored. */
  token: string;
  tokenHash: string;
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newSessionToken(): SessionToken {
  const token = `${SESSION_TOKEN_PREFIX}${randomBytes(SESSION_TOKEN_BYTES).toString('base64url')}`;
  return { token, tokenHash: hashSessionToken(token) };
}

/** Anything else was never issued, so it is answered without a database round trip. */
export function looksLikeSessionToken(token: string): boolean {
  return SESSION_TOKEN_PATTERN.test(token);
}

/** Session ids are not secrets: they name a session in audit records, the token opens it. */
export function newSessionId(): string {
  return newId('session');
}
