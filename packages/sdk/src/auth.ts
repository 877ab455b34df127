import { canonicalRequest, contentSha256, SIGNING_HEADERS, signatureHeader } from '@wallet/contracts';

/**
 * How the client proves who it is. `secret`: a secret API key. `hmac`: an HMAC key; every
 * request is signed and the signing secret never leaves the process. `session`: a dashboard
 * session token from `auth.login`. `system`: the platform operator's key.
 */
export type WalletAuth =
  | { type: 'secret'; apiKey: string }
  | { type: 'hmac'; keyId: string; signingSecret: string }
  | { type: 'session'; token: string }
  | { type: 'system'; systemKey: string };

/** The team member (or other actor) a key acts for; with an HMAC key it is part of the signature. */
export interface Actor {
  type: string;
  id: string;
}

/** One attempt as it goes on the wire: the signature covers exactly these values. */
export interface WireRequest {
  method: string;
  /** Path and query exactly as sent, percent-encoding included. */
  pathWithQuery: string;
  body: Buffer;
  idempotencyKey: string | null;
  actor: Actor | null;
}

export interface SigningClock {
  /** The signing timestamp; read on every attempt. */
  now: () => Date;
  /** A value never used before with this key: read on every attempt. */
  nonce: () => string;
}

const CREDENTIAL_DESCRIPTIONS: Record<WalletAuth['type'], Array<[string, string]>> = {
  secret: [['apiKey', 'an API key']],
  hmac: [
    ['keyId', 'a key id'],
    ['signingSecret', 'a signing secret'],
  ],
  session: [['token', 'a session token']],
  system: [['systemKey', 'a system key']],
};

/** Refuses a credential that could never work before any request leaves. */
export function assertValidAuth(auth: WalletAuth): void {
  const fields = CREDENTIAL_DESCRIPTIONS[auth.type];
  if (!fields) throw new TypeError(`Unknown auth type ${JSON.stringify((auth as { type: unknown }).type)}`);
  for (const [field, description] of fields) {
    const value = (auth as unknown as Record<string, unknown>)[field];
    if (typeof value !== 'string' || value.trim() === '')
      throw new TypeError(`auth type "${auth.type}" needs ${description} in "${field}"`);
  }
}

/**
 * The headers that authenticate one attempt, plus Idempotency-Key and actor headers. For
 * `hmac` they are signed over the exact body bytes and path of this attempt, with a timestamp
 * and nonce of this attempt: a retry re-signed this way is never a replay.
 */
export function credentialHeaders(auth: WalletAuth | null, request: WireRequest, clock: SigningClock): Record<string, string> {
  const headers: Record<string, string> = {};
  if (request.idempotencyKey !== null) headers[SIGNING_HEADERS.idempotencyKey] = request.idempotencyKey;
  if (request.actor) {
    headers[SIGNING_HEADERS.actorType] = request.actor.type;
    headers[SIGNING_HEADERS.actorId] = request.actor.id;
  }
  if (!auth) return headers;
  switch (auth.type) {
    case 'secret':
      headers['x-api-key'] = auth.apiKey;
      return headers;
    case 'session':
      headers.authorization = `Bearer ${auth.token}`;
      return headers;
    case 'system':
      headers['x-system-key'] = auth.systemKey;
      return headers;
    case 'hmac': {
      const timestamp = clock.now().toISOString();
      const nonce = clock.nonce();
      const hash = contentSha256(request.body);
      const canonical = canonicalRequest({
        timestamp,
        nonce,
        method: request.method,
        pathWithQuery: request.pathWithQuery,
        contentSha256: hash,
        idempotencyKey: request.idempotencyKey ?? undefined,
        actorType: request.actor?.type,
        actorId: request.actor?.id,
      });
      headers[SIGNING_HEADERS.keyId] = auth.keyId;
      headers[SIGNING_HEADERS.timestamp] = timestamp;
      headers[SIGNING_HEADERS.nonce] = nonce;
      headers[SIGNING_HEADERS.contentSha256] = hash;
      headers[SIGNING_HEADERS.signature] = signatureHeader(auth.signingSecret, canonical);
      return headers;
    }
  }
}
