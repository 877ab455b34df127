import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of the v1 signed-request scheme (docs/decisions/signing.md). */
export const SIGNING_HEADERS = {
  keyId: 'x-service-key-id',
  timestamp: 'x-service-timestamp',
  nonce: 'x-service-nonce',
  contentSha256: 'x-service-content-sha256',
  signature: 'x-service-signature',
  actorType: 'x-service-actor-type',
  actorId: 'x-service-actor-id',
  idempotencyKey: 'idempotency-key',
} as const;

export const SIGNATURE_VERSION = 'v1';

/**
 * A request nonce: 22 to 128 characters of the URL-safe alphabet, so at least 128 bits when
 * random (22 base64url characters; a UUID's 36 pass). Its form only: isAcceptableRequestNonce
 * also refuses text that is plainly not random.
 */
export const REQUEST_NONCE_PATTERN = /^[A-Za-z0-9._~-]{22,128}$/;

/**
 * The least variety a nonce must show: different characters, and different steps between the
 * codes of neighbouring characters. `aaaa...` and `abab...` have one or two characters,
 * `abcd...` and `0123...` one or a few steps. At 6, a random nonce of the narrowest kind we
 * name, 32 hex digits, is refused about once in 3 * 10^12 (8 would refuse one in 28 million).
 */
export const REQUEST_NONCE_VARIETY_MIN = 6;

/** What a nonce must be, as the gateway's refusal and the documents say it. */
export const REQUEST_NONCE_RULE =
  `22 to 128 characters of A-Z a-z 0-9 . _ ~ -, with at least ${REQUEST_NONCE_VARIETY_MIN} different characters and ` +
  `${REQUEST_NONCE_VARIETY_MIN} different differences between the codes of neighbouring characters ` +
  '(a random UUID, or 16 or more random bytes in base64url)';

/**
 * A nonce in the form of REQUEST_NONCE_PATTERN that does not look plainly made up. The contract
 * asks for a UUID or 128 random bits; no check can prove randomness, but one can refuse what is
 * certainly not random (docs/decisions/signing.md). Anything else is 401 INVALID_REQUEST_NONCE,
 * before the key is looked up or any HMAC computed.
 */
export function isAcceptableRequestNonce(nonce: string): boolean {
  if (!REQUEST_NONCE_PATTERN.test(nonce)) return false;
  const steps = new Set<number>();
  for (let index = 1; index < nonce.length; index += 1) steps.add(nonce.charCodeAt(index) - nonce.charCodeAt(index - 1));
  return new Set(nonce).size >= REQUEST_NONCE_VARIETY_MIN && steps.size >= REQUEST_NONCE_VARIETY_MIN;
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** base64url (no padding) of the SHA-256 of the raw body bytes. */
export function contentSha256(body: Buffer | string): string {
  return base64url(
    createHash('sha256')
      .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
      .digest(),
  );
}

/**
 * Line 5 of the canonical request: the path exactly as received and the query's `key=value`
 * parts sorted by key, then by value, comparing the raw (still percent-encoded) text by UTF-16
 * code unit. Duplicate keys are kept; a part without `=` is a key with no value.
 */
export function canonicalPathWithQuery(pathWithQuery: string): string {
  const questionMark = pathWithQuery.indexOf('?');
  if (questionMark < 0) return pathWithQuery;
  const path = pathWithQuery.slice(0, questionMark);
  const query = pathWithQuery.slice(questionMark + 1);
  if (query === '') return path;
  const parts = query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const equals = part.indexOf('=');
      return equals < 0 ? { key: part, value: '', text: part } : { key: part.slice(0, equals), value: part.slice(equals + 1), text: part };
    });
  const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  parts.sort((a, b) => byCodeUnit(a.key, b.key) || byCodeUnit(a.value, b.value));
  return parts.length === 0 ? path : `${path}?${parts.map((part) => part.text).join('&')}`;
}

export interface CanonicalRequestInput {
  timestamp: string;
  nonce: string;
  method: string;
  pathWithQuery: string;
  contentSha256: string;
  idempotencyKey?: string | undefined;
  actorType?: string | undefined;
  actorId?: string | undefined;
}

/** The nine lines of the v1 canonical request, joined by '\n' with none after the last. */
export function canonicalRequest(input: CanonicalRequestInput): string {
  return [
    SIGNATURE_VERSION,
    input.timestamp,
    input.nonce,
    input.method.toUpperCase(),
    canonicalPathWithQuery(input.pathWithQuery),
    input.contentSha256,
    input.idempotencyKey ?? '',
    input.actorType ?? '',
    input.actorId ?? '',
  ].join('\n');
}

/** `v1=:<base64url HMAC-SHA256(secret, canonical request)>:` */
export function signatureHeader(signingSecret: string, canonical: string): string {
  const mac = createHmac('sha256', Buffer.from(signingSecret, 'utf8')).update(canonical, 'utf8').digest();
  return `${SIGNATURE_VERSION}=:${base64url(mac)}:`;
}

export interface SignRequestInput extends Omit<CanonicalRequestInput, 'contentSha256'> {
  keyId: string;
  signingSecret: string;
  body: Buffer | string;
}

/** What a client sends: every header of a signed request. */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const hash = contentSha256(input.body);
  const canonical = canonicalRequest({ ...input, contentSha256: hash });
  const headers: Record<string, string> = {
    'X-Service-Key-Id': input.keyId,
    'X-Service-Timestamp': input.timestamp,
    'X-Service-Nonce': input.nonce,
    'X-Service-Content-SHA256': hash,
    'X-Service-Signature': signatureHeader(input.signingSecret, canonical),
  };
  if (input.idempotencyKey !== undefined) headers['Idempotency-Key'] = input.idempotencyKey;
  if (input.actorType !== undefined) headers['X-Service-Actor-Type'] = input.actorType;
  if (input.actorId !== undefined) headers['X-Service-Actor-Id'] = input.actorId;
  return headers;
}

/** Constant-time comparison of two strings of any length. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

export interface MomoWebhookSignedFields {
  transactionId: string;
  walletId: string;
  /** The amount exactly as its JSON token appeared in the body. */
  amountText: string;
  currencyCode: string;
  phoneNumber: string;
  timestamp: string;
}

export function momoWebhookSignedText(fields: MomoWebhookSignedFields): string {
  return [
    'momo-v1',
    fields.transactionId,
    fields.walletId,
    fields.amountText,
    fields.currencyCode,
    fields.phoneNumber,
    fields.timestamp,
  ].join('\n');
}

/** base64url (no padding) of HMAC-SHA256(webhook secret, signed text) (docs/decisions/momo-webhook.md). */
export function momoWebhookSignature(webhookSecret: string, fields: MomoWebhookSignedFields): string {
  return base64url(createHmac('sha256', Buffer.from(webhookSecret, 'utf8')).update(momoWebhookSignedText(fields), 'utf8').digest());
}
