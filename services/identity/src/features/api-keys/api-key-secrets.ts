import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '@wallet/contracts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62 x 4: bytes at or above it are dropped, so every character is equally likely. */
const UNBIASED_LIMIT = 248;
const SECRET_KEY_RANDOM_CHARS = 40;

function randomBase62(length: number): string {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) text += BASE62[byte % 62];
      if (text.length === length) break;
    }
  }
  return text;
}

export function secretKeyPrefix(environment: Environment): string {
  return `sk_${environment}_`;
}

/** The only form a secret key is stored in. */
export function hashSecretKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface NewSecretKey {
  /** Shown once, to the caller that created or rotated the key. */
  key: string;
  hash: string;
  last4: string;
}

/** `sk_test_` / `sk_live_` and 40 base62 characters (about 238 bits). */
export function newSecretKey(environment: Environment): NewSecretKey {
  const key = `${secretKeyPrefix(environment)}${randomBase62(SECRET_KEY_RANDOM_CHARS)}`;
  return { key, hash: hashSecretKey(key), last4: key.slice(-4) };
}

/**
 * 32 random bytes, base64url, behind a prefix that tells it apart from a secret key in a
 * config file or a leak report. The HMAC key is this whole text, as UTF-8.
 */
export function newSigningSecret(environment: Environment): string {
  return `sig_${environment}_${randomBytes(32).toString('base64url')}`;
}

/** Associated data of a key's sealed signing secrets: a ciphertext moved to another key's row does not open. */
export function signingSecretContext(keyId: string): string {
  return `api_key.signing_secret:${keyId}`;
}
