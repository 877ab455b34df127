import type { Db, Logger, ServiceMetrics } from '@wallet/kit';
import type { SealedSecret, SecretBox } from '../secrets/secret-box';
import {
  claimDueDeliveries,
  type ClaimedDelivery,
  type DeliveryNext,
  disableEndpoint,
  noteEndpointOutcome,
  recordAttempt,
} from './deliveries-store';
import { endpointSecretContext, signingSecrets } from './endpoints-store';
import type { EndpointNotices } from './endpoint-notices';
import type { AttemptOutcome, WebhookSender } from './webhook-sender';

export interface DeliveryPolicy {
  /** The wait before each retry: attempt n+1 waits the n-th (about three days in all by default). */
  retryDelaysMs: readonly number[];
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number;
  /** Attempts in flight at most. */
  concurrency: number;
  /** How long a claimed delivery is the claimer's: past it, a crashed worker's delivery is due again. */
  leaseMs: number;
  /** How often an idle worker looks for due deliveries (new events wake it sooner). */
  pollMs: number;
}

/** A receiver's Retry-After is honoured up to a day: a longer one would only park the delivery past its schedule. */
const RETRY_AFTER_MAX_MS = 24 * 3600 * 1000;

/** What follows an attempt: success, `410 Gone` (never again), a retry after its delay (or the receiver's Retry-After), or the end of the schedule. */
export function nextAfter(
  policy: Pick<DeliveryPolicy, 'retryDelaysMs'>,
  attempt: number,
  outcome: AttemptOutcome,
  now: number,
  random = Math.random,
): DeliveryNext {
  const status = outcome.responseStatus;
  if (status !== null && status >= 200 && status < 300) return { status: 'succeeded' };
  if (status === 410) return { status: 'failed' };
  const delay = policy.retryDelaysMs[attempt - 1];
  if (delay === undefined) return { status: 'failed' };
  // Up to 10% either way, so deliveries failed together do not all come back at once.
  const jittered = delay * (0.9 + 0.2 * random());
  const wait = Math.max(jittered, Math.min(outcome.retryAfterMs ?? 0, RETRY_AFTER_MAX_MS));
  return { status: 'pending', nextAttemptAt: new Date(now + wait) };
}

/**
 * Delivers pending webhooks: takes due deliveries (claimDueDeliveries), sends each with its
 * endpoint's signing secrets, records the attempt and what follows. It works from identity's own
 * tables, after the events were recorded, so nothing it does (a slow receiver, a dead one) can
 * reach the services that announced them.
 */
export class WebhookWorker {
  private inFlight = 0;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly attempts: Set<Promise<void>> = new Set();
  private claiming: Promise<void> | null = null;
  /** A wake that came while claiming: claim again once done, as an attempt that ended may have made room. */
  private wokenWhileClaiming = false;
  private readonly outcomes;

  constructor(
    private readonly deps: {
      db: Db;
      secrets: SecretBox;
      sender: WebhookSender;
      notices: EndpointNotices;
      policy: DeliveryPolicy;
      logger: Logger;
      metrics: ServiceMetrics;
    },
  ) {
    this.outcomes = deps.metrics.counter('webhook_attempts_total', 'Webhook delivery attempts, by outcome', ['outcome']);
  }

  start(): void {
    this.running = true;
    this.wake();
  }

  /** Looks for due deliveries now: new events were recorded, or an attempt ended. */
  wake(): void {
    if (!this.running) return;
    if (this.claiming) {
      this.wokenWhileClaiming = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.claiming = this.claim().finally(() => {
      this.claiming = null;
      if (this.wokenWhileClaiming) {
        this.wokenWhileClaiming = false;
        this.wake();
      } else if (this.running && !this.timer) this.timer = setTimeout(() => this.wake(), this.deps.policy.pollMs).unref();
    });
  }

  private async claim(): Promise<void> {
    const room = this.deps.policy.concurrency - this.inFlight;
    if (room <= 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimDueDeliveries(this.deps.db, room, this.deps.policy.leaseMs);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'due webhook deliveries could not be read; trying again shortly');
      return;
    }
    if (claimed.length === 0) return;
    let secrets: Map<string, SealedSecret[]>;
    try {
      // One read of the signing secrets for every endpoint the claim touched.
      secrets = await signingSecrets(
        this.deps.db,
        claimed.map((delivery) => delivery.endpointId),
      );
    } catch (error) {
      this.deps.logger.warn(
        { err: error },
        'webhook signing secrets could not be read; the claimed deliveries are due again after their lease',
      );
      return;
    }
    for (const delivery of claimed) this.track(this.attempt(delivery, secrets.get(delivery.endpointId) ?? []));
  }

  private track(attempt: Promise<void>): void {
    this.inFlight += 1;
    this.attempts.add(attempt);
    void attempt.finally(() => {
      this.inFlight -= 1;
      this.attempts.delete(attempt);
      this.wake();
    });
  }

  private async attempt(delivery: ClaimedDelivery, sealed: readonly SealedSecret[]): Promise<void> {
    try {
      const outcome = await this.send(delivery, sealed);
      const attemptedAt = new Date();
      const next = nextAfter(this.deps.policy, delivery.attempt, outcome, attemptedAt.getTime());
      await recordAttempt(this.deps.db, delivery.id, outcome, attemptedAt, next);
      this.outcomes.inc({ outcome: next.status === 'pending' ? 'retrying' : next.status });
      await this.noteEndpoint(delivery, outcome);
    } catch (error) {
      // The lease runs out and the delivery is attempted again: nothing is lost.
      this.deps.logger.warn({ err: error, deliveryId: delivery.id }, 'a webhook attempt could not be recorded; it will be attempted again');
    }
  }

  private async send(delivery: ClaimedDelivery, sealed: readonly SealedSecret[]): Promise<AttemptOutcome> {
    if (delivery.payload === null)
      return { responseStatus: null, latencyMs: 0, excerpt: 'the event is past its retention', retryAfterMs: null };
    const secrets = sealed.map((secret) => this.deps.secrets.open(secret, endpointSecretContext(delivery.endpointId)));
    return this.deps.sender.send({ url: delivery.url, eventId: delivery.eventId, payload: delivery.payload, secrets });
  }

  private async noteEndpoint(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const status = outcome.responseStatus;
    const succeeded = status !== null && status >= 200 && status < 300;
    const endpoint = { id: delivery.endpointId, failing: delivery.endpointFailing };
    const failingTooLong = await noteEndpointOutcome(this.deps.db, endpoint, succeeded, this.deps.policy.disableAfterMs);
    const reason = status === 410 ? 'gone' : failingTooLong ? 'failing' : null;
    if (!reason) return;
    const disabled = await this.deps.db.transaction((tx) => disableEndpoint(tx, delivery.endpointId, reason));
    if (disabled)
      await this.deps.notices.disabled({ ...disabled, endpointId: delivery.endpointId, environment: delivery.environment, reason });
  }

  /** Stops claiming and waits for the attempts in flight (each is recorded, or left to its lease). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.attempts]);
  }
}
