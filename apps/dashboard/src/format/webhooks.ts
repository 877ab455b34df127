import { EVENT_TYPES, type EventType, type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointWithSecret } from '@wallet/contracts';
import type { RevealedSecret } from './api-keys';

/**
 * Splits a creation's or rotation's answer into the endpoint as the list shows it and its signing
 * secret: only the endpoint may be kept (query or mutation cache); the secret goes to the one
 * dialog that shows it and is dropped when that closes.
 */
export function splitEndpointSecret(answer: WebhookEndpointWithSecret): { endpoint: WebhookEndpoint; secret: RevealedSecret } {
  const { secret, ...endpoint } = answer;
  return { endpoint, secret: { label: 'Signing secret', value: secret } };
}

/** The types an endpoint may subscribe to by name: a test event goes only to the endpoint that asks for it, whatever its types. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type !== 'webhook_endpoint.test');

/** An endpoint's subscription in words: `*` is every type, those added later too. */
export function eventTypesLabel(eventTypes: readonly string[]): string {
  return eventTypes.includes('*') ? 'All events' : eventTypes.join(', ');
}

/** Whether an endpoint is delivered to, and who stopped it when it is not. */
export function endpointState(endpoint: Pick<WebhookEndpoint, 'enabled' | 'disabledReason'>): {
  label: 'enabled' | 'disabled';
  color: string;
  reason: string | null;
} {
  if (endpoint.enabled) return { label: 'enabled', color: 'green', reason: null };
  if (endpoint.disabledReason === 'gone')
    return { label: 'disabled', color: 'red', reason: 'By the platform: the endpoint answered 410 Gone' };
  if (endpoint.disabledReason === 'failing')
    return { label: 'disabled', color: 'red', reason: 'By the platform: its deliveries kept failing for days' };
  return { label: 'disabled', color: 'gray', reason: 'By your team' };
}

export type WebhookAttempt = WebhookDelivery['attempts'][number];

/** A delivery's latest attempt (attempts are kept oldest first); null before the first. */
export function lastAttempt(delivery: Pick<WebhookDelivery, 'attempts'>): WebhookAttempt | null {
  return delivery.attempts.at(-1) ?? null;
}

export function attemptsLabel(count: number): string {
  return count === 1 ? '1 attempt' : `${count} attempts`;
}

/** An attempt's answer in words: its HTTP status, or that none came. */
export function responseLabel(attempt: Pick<WebhookAttempt, 'responseStatus'>): string {
  return attempt.responseStatus === null ? 'No answer' : String(attempt.responseStatus);
}

/** A 2xx answer is a delivery; anything else (no answer included) is a failed attempt. */
export function responseColor(attempt: Pick<WebhookAttempt, 'responseStatus'>): string {
  const status = attempt.responseStatus;
  return status !== null && status >= 200 && status < 300 ? 'green' : 'red';
}

/** What a replay of failed deliveries did. */
export function replayedLabel(replayed: number): string {
  if (replayed === 0) return 'No failed delivery since then: nothing to replay.';
  return replayed === 1 ? '1 failed delivery is being delivered again.' : `${replayed} failed deliveries are being delivered again.`;
}
