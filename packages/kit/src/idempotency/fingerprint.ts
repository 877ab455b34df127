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

/**
 * Who asks, as a fingerprint binds it: the internal token's claims. The credential is the API
 * key's id, or for a dashboard session the member the session belongs to (its actor, which the
 * gateway sets from the session, never from headers), or the platform operator; a key's actor
 * headers only narrow it further. The scopes are those the credential holds now.
 */
export interface IdempotencyPrincipal {
  surface: string;
  authMode?: string | undefined;
  keyId: string | null;
  actor: { type: string; id: string } | null;
  scopes: readonly string[];
}

export interface FingerprintInput {
  /** HTTP method; compared upper-cased. */
  method: string;
  /** Path plus query string exactly as received (`request.originalUrl`), percent-encoding kept. */
  pathWithQuery: string;
  principal: IdempotencyPrincipal;
  /** The raw request body bytes as received, before any parsing. */
  body: Buffer;
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * What makes a retry "the same request", as lowercase SHA-256 hex of the UTF-8 JSON text
 *
 *   ["idempotency-v2", METHOD, pathWithQuery, surface, authMode | null, keyId | null,
 *    actorType | null, actorId | null, [scopes, sorted], sha256hex(body bytes)]
 *
 * - the body bytes as received, not the parsed value: `100.10` and `100.1`, or a reordered or
 *   re-spaced object, are different requests (a retry resends the same bytes; anything else is
 *   the client meaning something else, and refusing it is safer than guessing);
 * - the path and query as received, so the same key on another route or resource is a reuse;
 * - the principal (docs/decisions/idempotency.md): a remembered answer goes back only to the
 *   credential that made the first request, holding the same scopes. Another key of the tenant,
 *   another member, a key naming another actor, or the same credential after its scopes changed
 *   is another request (422): a weaker caller that learnt a key (request logs show them) must
 *   not be handed what a stronger one was given, such as a secret shown once;
 * - not the tenant or environment: they scope the key itself (the table's primary key).
 * A JSON array keeps the fields apart whatever characters they hold, and hashing the body first
 * keeps the outer text small.
 */
export function requestFingerprint(input: FingerprintInput): string {
  const { principal } = input;
  const parts = [
    'idempotency-v2',
    input.method.toUpperCase(),
    input.pathWithQuery,
    principal.surface,
    principal.authMode ?? null,
    principal.keyId,
    principal.actor?.type ?? null,
    principal.actor?.id ?? null,
    [...principal.scopes].sort(),
    sha256Hex(input.body),
  ];
  return sha256Hex(JSON.stringify(parts));
}
