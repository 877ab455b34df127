import { performance } from 'node:perf_hooks';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { type AddressPolicy, checkAddress, guardedLookup, hostOf } from './address-guard';

/** What one attempt sends: the event's exact bytes under its id, signed with every valid secret. */
export interface Delivery {
  url: string;
  eventId: string;
  payload: string;
  /** `whsec_...` secrets; during a rotation two, and the receiver may verify with either. */
  secrets: readonly string[];
}

export interface AttemptOutcome {
  /** null when no answer came (refused, timed out, address not allowed). */
  responseStatus: number | null;
  latencyMs: number;
  /** The start of the answer's body, or what went wrong. */
  excerpt: string;
  /** The receiver's Retry-After, in milliseconds from now, where it gave one. */
  retryAfterMs: number | null;
}

/** How much of an answer's body an attempt keeps: enough to see an error, never a receiver's page. */
export const EXCERPT_BYTES_MAX = 1024;
const USER_AGENT = 'wallet-platform-webhooks/1';

/** Standard Webhooks signatures of the payload, one per secret, space-separated (`v1,<base64> v1,<base64>`). */
export function signatures(delivery: Delivery, at: Date): string {
  return delivery.secrets.map((secret) => new Webhook(secret).sign(delivery.eventId, at, delivery.payload)).join(' ');
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Reads at most EXCERPT_BYTES_MAX of a body and drops the rest unread. */
async function excerptOf(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= EXCERPT_BYTES_MAX) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES_MAX).toString('utf8');
}

/**
 * Sends webhooks: one POST per attempt, no redirects followed (a 3xx is a failed attempt), each
 * connection's addresses checked against the policy, a deadline on the whole attempt.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: { policy: AddressPolicy; timeoutMs: number }) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(options.policy), timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connections: 8,
    });
  }

  async send(delivery: Delivery): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(delivery.url);
      // A literal address is connected to without a lookup: it is checked here instead.
      if (ipaddr.isValid(hostOf(url))) checkAddress(this.options.policy, hostOf(url), hostOf(url));
      const at = new Date();
      const answer = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatures(delivery, at),
        },
        body: delivery.payload,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const excerpt = await excerptOf(answer.body);
      return {
        responseStatus: answer.statusCode,
        latencyMs: elapsed(),
        excerpt,
        retryAfterMs: retryAfterMs(answer.headers['retry-after']),
      };
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { responseStatus: null, latencyMs: elapsed(), excerpt: message.slice(0, EXCERPT_BYTES_MAX), retryAfterMs: null };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
