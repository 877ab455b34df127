import { createHash } from 'node:crypto';
import { AppError } from '../errors';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1-255 printable ASCII characters (space to tilde), as clients generate them (UUIDs, ULIDs, order ids). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The Idempotency-Key header value, `undefined` when absent, or VALIDATION_ERROR. An empty value
 * counts as absent: the gateway drops empty headers, so a service never sees the difference and
 * a client gets the same answer directly and through it.
 */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!KEY_PATTERN.test(value)) {
    throw new AppError('VALIDATION_ERROR', 'Invalid request headers', {
      fields: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return value;
}

export interface FingerprintInput {
  /** HTTP method; compared upper-cased. */
  method: string;
  /** Path plus query string exactly as received (`request.originalUrl`), percent-encoding kept. */
  pathWithQuery: string;
  /** The actor the caller declared (internal token claims), or null. */
  actor: { type: string; id: string } | null;
  /** The raw request body bytes as received, before any parsing. */
  body: Buffer;
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * What makes a retry "the same request", as lowercase SHA-256 hex of the UTF-8 JSON text
 *
 *   ["idempotency-v1", METHOD, pathWithQuery, actorType | null, actorId | null, sha256hex(body bytes)]
 *
 * - the body bytes as received, not the parsed value: `100.10` and `100.1`, or a reordered or
 *   re-spaced object, are different requests (a retry resends the same bytes; anything else is
 *   the client meaning something else, and refusing it is safer than guessing);
 * - the path and query as received, so the same key on another route or resource is a reuse;
 * - the declared actor, so one member's key cannot replay another member's answer;
 * - not the tenant or environment: they scope the key itself (the table's primary key);
 * - not the API key id: a client may retry through a rotated or second key of the same tenant.
 * A JSON array keeps the fields apart whatever characters they hold, and hashing the body first
 * keeps the outer text small.
 */
export function requestFingerprint(input: FingerprintInput): string {
  const parts = ['idempotency-v1', input.method.toUpperCase(), input.pathWithQuery, input.actor?.type ?? null, input.actor?.id ?? null, sha256Hex(input.body)];
  return sha256Hex(JSON.stringify(parts));
}
