import { parseJsonLossless, type PlatformEvent, platformEventSchema } from '@wallet/contracts';
import { Webhook, WebhookVerificationError as StandardWebhooksError } from 'standardwebhooks';
import type { ValidationIssues } from './errors';

/** The Standard Webhooks window: a delivery stamped further than this from the clock is refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_payload';

// A brand shared across copies of this package, as WalletApiError's: `instanceof` fails when an
// application ends up with two installed versions, the brand does not.
const WEBHOOK_ERROR_BRAND = Symbol.for('@wallet/sdk/WebhookVerificationError');

/**
 * A delivery that cannot be trusted or read: answer it with a 4xx and do not act on it. An
 * `invalid_payload` with a `body` came after the signature matched: the body is what was signed.
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;
  /** For `invalid_payload`: how the signed body differs from a PlatformEvent. */
  readonly issues: ValidationIssues;
  /** For `invalid_payload`: the signed body, parsed losslessly when it is JSON (an event type newer than this SDK lands here). */
  readonly body: unknown;
  readonly [WEBHOOK_ERROR_BRAND] = true;

  constructor(
    reason: WebhookVerificationReason,
    message: string,
    init: { issues?: ValidationIssues; body?: unknown; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.reason = reason;
    this.issues = init.issues ?? [];
    this.body = init.body;
  }
}

export function isWebhookVerificationError(error: unknown): error is WebhookVerificationError {
  return (
    error instanceof WebhookVerificationError ||
    (typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[WEBHOOK_ERROR_BRAND] === true)
  );
}

/**
 * The request's headers as a server framework hands them over: a fetch `Headers` (or anything
 * with `get`), or a plain object such as Node's `req.headers`, in any letter case.
 */
export type WebhookHeaders =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

const HEADER_NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
type HeaderName = (typeof HEADER_NAMES)[number];

function readHeaders(headers: WebhookHeaders): Partial<Record<HeaderName, string>> {
  const read: Partial<Record<HeaderName, string>> = {};
  if (typeof headers.get === 'function') {
    const lookup = headers as { get(name: string): string | null | undefined };
    for (const name of HEADER_NAMES) {
      const value = lookup.get(name);
      if (typeof value === 'string' && value !== '') read[name] = value;
    }
    return read;
  }
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, string | readonly string[] | undefined>>)) {
    const name = key.toLowerCase() as HeaderName;
    if (!HEADER_NAMES.includes(name)) continue;
    // A header repeated by a proxy arrives as an array; its signatures are one space-separated list.
    const text = Array.isArray(value) ? value.join(' ') : value;
    if (typeof text === 'string' && text !== '') read[name] = text;
  }
  return read;
}

function checkTimestamp(header: string, nowSeconds: number): void {
  if (!/^\d{1,12}$/.test(header.trim())) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  const age = nowSeconds - Number(header.trim());
  if (age > WEBHOOK_TOLERANCE_SECONDS) throw new WebhookVerificationError('timestamp_too_old', `The delivery was signed ${age} s ago`);
  if (-age > WEBHOOK_TOLERANCE_SECONDS)
    throw new WebhookVerificationError('timestamp_too_new', `The delivery is stamped ${-age} s in the future`);
}

function webhookFor(secret: string): Webhook {
  try {
    return new Webhook(secret);
  } catch (error) {
    throw new TypeError('A webhook secret is the endpoint\'s "whsec_..." value (base64 after the prefix)', { cause: error });
  }
}

function payloadText(payload: string | Uint8Array): string {
  if (typeof payload === 'string') return payload;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(payload);
  } catch (error) {
    throw new WebhookVerificationError('invalid_payload', 'The delivery body is not UTF-8', { cause: error });
  }
}

/** The body once its signature matched: JSON losslessly parsed, then checked to be a PlatformEvent. */
function parseEvent(text: string): PlatformEvent {
  let body: unknown;
  try {
    // Lossless: a number in the event's object keeps its exact digits (a LosslessNumber), never a float.
    body = parseJsonLossless(text);
  } catch (error) {
    throw new WebhookVerificationError('invalid_payload', 'The delivery body is not JSON', { body: text, cause: error });
  }
  const checked = platformEventSchema.safeParse(body);
  if (!checked.success) {
    const where = checked.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new WebhookVerificationError('invalid_payload', `The delivery body is not a platform event: ${where}`, {
      issues: checked.error.issues,
      body,
    });
  }
  return checked.data;
}

/**
 * Checks a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the endpoint's secret, or against each secret while one is being
 * rotated, and returns its event. `payload` must be the raw body exactly as received, before any
 * JSON parsing. Throws WebhookVerificationError when the signature, the timestamp (5 minutes of
 * tolerance) or the body is wrong.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[]): PlatformEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs at least one secret');
  const webhooks = secrets.map(webhookFor);
  const read = readHeaders(headers);
  const missing = HEADER_NAMES.filter((name) => read[name] === undefined);
  if (missing.length > 0) throw new WebhookVerificationError('missing_headers', `Missing ${missing.join(', ')}`);
  checkTimestamp(read['webhook-timestamp'] as string, Math.floor(Date.now() / 1000));
  const text = payloadText(payload);
  const signed = webhooks.some((webhook) => {
    try {
      webhook.verify(text, read as Record<HeaderName, string>, { jsonParse: false });
      return true;
    } catch (error) {
      if (error instanceof StandardWebhooksError) return false;
      throw error;
    }
  });
  if (!signed) throw new WebhookVerificationError('invalid_signature', 'No signature of the delivery matches the secret');
  return parseEvent(text);
}
