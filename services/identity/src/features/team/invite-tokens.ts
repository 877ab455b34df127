import { createHash, randomBytes } from 'node:crypto';

/** How long an invite can be accepted. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const INVITE_TOKEN_BYTES = 32;

export interface InviteToken {
  /** Goes only into the invite email; never stored. */
  token: string;
  /** What the database keeps: enough to recognise the token, useless to anyone who reads it. */
  tokenHash: string;
  expiresAt: Date;
}

export function hashInviteToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newInviteToken(nowMs: number = Date.now()): InviteToken {
  const token = randomBytes(INVITE_TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashInviteToken(token), expiresAt: new Date(nowMs + INVITE_TTL_MS) };
}
