import {
  type ApiKeyPrincipal,
  canonicalRequest,
  constantTimeEqual,
  contentSha256,
  SIGNING_HEADERS,
  signatureHeader,
} from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import type { CredentialGrant, SecretKeyResolver, SignedRequestResolver } from './authenticators';
import type { KeyCache } from './key-cache';
import { enforceRestrictions } from './key-restrictions';
import type { NonceStore } from './nonce-store';

/** More than this between the client's timestamp and our clock, either way, is stale. */
export const MAX_TIMESTAMP_SKEW_MS = 300_000;
/**
 * How long a nonce is remembered. A timestamp is accepted up to 300 s either side of our
 * clock, so a request signed 300 s ahead stays acceptable for 600 s after its first use.
 */
export const NONCE_RETENTION_MS = 600_000;

/** ISO 8601 with a zone, as the signing vectors send it; anything else is unparseable, hence stale. */
const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export function parseTimestampMs(text: string): number | null {
  if (!TIMESTAMP_PATTERN.test(text)) return null;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : parsed;
}

/**
 * Shapes identity could never have issued are refused here, without a round trip: a secret
 * longer than identity accepts would come back as a validation error (our 503, not the
 * client's 401), and a key id with dots or slashes would change the lookup URL's path.
 */
const MAX_SECRET_LENGTH = 256;
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** A cached answer must not outlive the credential it vouches for: a rotated-out secret or an expiring key. */
function refuseIfLapsed(principal: ApiKeyPrincipal, nowMs: number): void {
  if (principal.validUntil !== null && Date.parse(principal.validUntil) <= nowMs) {
    throw new AppError('API_KEY_EXPIRED', 'This API key or secret has expired');
  }
}

function grantOf(principal: ApiKeyPrincipal): CredentialGrant {
  return { tenantId: principal.tenantId, environment: principal.environment, keyId: principal.keyId, scopes: [...principal.scopes] };
}

export interface KeyCredentialOptions {
  keys: KeyCache;
  nonces: NonceStore;
  /** Milliseconds since the epoch; injected so tests can stand at any skew without sleeping. */
  nowMs?: () => number;
}

/** `X-API-Key`: identity's answer (cached), refused for keys that must sign, then the key's restrictions. */
export function secretKeyResolver(options: KeyCredentialOptions): SecretKeyResolver {
  const nowMs = options.nowMs ?? Date.now;
  return async (secret, call) => {
    if (secret.length > MAX_SECRET_LENGTH) throw new AppError('INVALID_API_KEY', 'Unknown API key');
    const principal = await options.keys.principalForSecret(secret);
    refuseIfLapsed(principal, nowMs());
    // A key that must sign authenticates only by signature; its secret alone is worth nothing.
    if (principal.authMode === 'hmac' || principal.restrictions.requireRequestSigning) {
      throw new AppError('INVALID_API_KEY', 'This key authenticates only by signed requests');
    }
    enforceRestrictions(principal.restrictions, call);
    return grantOf(principal);
  };
}

/**
 * Signed requests, in the order of docs/decisions/signing.md: key, timestamp, content hash,
 * signature, nonce (the authenticator already refused a missing header). The key's
 * restrictions come last: they authorize a caller the signature already authenticated.
 */
export function signedRequestResolver(options: KeyCredentialOptions): SignedRequestResolver {
  const nowMs = options.nowMs ?? Date.now;
  return async (call, headers) => {
    if (!KEY_ID_PATTERN.test(headers.keyId)) throw new AppError('INVALID_API_KEY', 'Unknown API key');
    const material = await options.keys.signingMaterial(headers.keyId);
    const { principal } = material;
    if (principal.authMode !== 'hmac' || principal.keyId !== headers.keyId) throw new AppError('INVALID_API_KEY', 'Unknown API key');

    const now = nowMs();
    refuseIfLapsed(principal, now);
    const timestampMs = parseTimestampMs(headers.timestamp);
    if (timestampMs === null || Math.abs(now - timestampMs) > MAX_TIMESTAMP_SKEW_MS) {
      throw new AppError(
        'STALE_REQUEST_TIMESTAMP',
        'X-Service-Timestamp is more than 300 seconds from the server clock, or not an ISO 8601 time',
      );
    }

    // Over the bytes as received: a body re-serialized after parsing (100.10 -> 100.1) would not match.
    if (!constantTimeEqual(contentSha256(call.rawBody), headers.contentSha256)) {
      throw new AppError('INVALID_REQUEST_CONTENT_HASH', 'X-Service-Content-SHA256 does not match the body');
    }

    const canonical = canonicalRequest({
      timestamp: headers.timestamp,
      nonce: headers.nonce,
      method: call.method,
      pathWithQuery: call.pathWithQuery,
      contentSha256: headers.contentSha256,
      idempotencyKey: call.header(SIGNING_HEADERS.idempotencyKey),
      actorType: call.header(SIGNING_HEADERS.actorType),
      actorId: call.header(SIGNING_HEADERS.actorId),
    });
    // The cached material may outlive a rotated secret's overlap: its validUntil is checked here, against our clock.
    const valid = material.signingSecrets.filter((signing) => signing.validUntil === null || Date.parse(signing.validUntil) > now);
    let verified = false;
    // Every valid secret is compared (no early exit), each in constant time.
    for (const signing of valid) verified = constantTimeEqual(signatureHeader(signing.secret, canonical), headers.signature) || verified;
    if (!verified) throw new AppError('INVALID_REQUEST_SIGNATURE', 'X-Service-Signature does not verify');

    // Only now: a request with a bad signature must not burn a nonce its real sender will use.
    const firstUse = await options.nonces.recordFirstUse(principal.keyId, headers.nonce, new Date(now), new Date(now + NONCE_RETENTION_MS));
    if (!firstUse) throw new AppError('REQUEST_NONCE_REPLAYED', 'This nonce was already used with this key');

    enforceRestrictions(principal.restrictions, call);
    return grantOf(principal);
  };
}
