import type { Db, Logger, ServiceMetrics, Tx } from '@wallet/kit';
import type { SealedSecret, SecretBox } from '../secrets/secret-box';
import {
  type ClaimedDelivery,
  type DeliveryNext,
  disableEndpoint,
  lockDueDeliveries,
  noteEndpointOutcome,
  recordAttempts,
} from './deliveries-store';
import { endpointSecretContext, signingSecrets } from './endpoints-store';
import type { DisabledEndpoint, EndpointNotices } from './endpoint-notices';
import type { AttemptOutcome, WebhookSender } from './webhook-sender';

export interface DeliveryPolicy {
  /** The wait before each retry: attempt n+1 waits the n-th (about three days in all by default). */
  retryDelaysMs: readonly number[];
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number;
  /** Attempts in flight at most. */
  concurrency: number;
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

/** Batches in flight at most: each holds a database connection while its attempts run. */
const BATCHES_MAX = 4;

/**
 * Delivers pending webhooks in batches: a batch's transaction locks due deliveries
 * (lockDueDeliveries), sends each with its endpoint's signing secrets, and records every attempt
 * and what follows in one statement. It works from identity's own tables, after the events were
 * recorded, so nothing it does (a slow receiver, a dead one) can reach the services that
 * announced them.
 */
export class WebhookWorker {
  private inFlight = 0;
  private batches = 0;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly batchesInFlight: Set<Promise<void>> = new Set();
  private claiming: Promise<void> | null = null;
  /** A wake that came while claiming: claim again once done, as a batch that ended may have made room. */
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

  /** Looks for due deliveries now: new events were recorded, or a batch ended. */
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

  /** Starts a batch and waits until it has locked its deliveries; a full batch looks for more at once. */
  private async claim(): Promise<void> {
    const room = this.deps.policy.concurrency - this.inFlight;
    if (room <= 0 || this.batches >= BATCHES_MAX) return;
    let locked: (count: number) => void = () => undefined;
    const claimed = new Promise<number>((resolve) => (locked = resolve));
    this.batches += 1;
    const batch = this.runBatch(room, locked).finally(() => {
      this.batches -= 1;
      this.batchesInFlight.delete(batch);
    });
    this.batchesInFlight.add(batch);
    const count = await claimed;
    // An empty batch ends the looking until the next wake or poll; a batch that took something
    // makes room when it ends, and a full one says more may be due at once.
    if (count > 0) void batch.then(() => this.wake());
    if (count === room) this.wokenWhileClaiming = true;
  }

  private async runBatch(limit: number, locked: (count: number) => void): Promise<void> {
    let disabled: DisabledEndpoint[] = [];
    try {
      disabled = await this.deps.db.transaction((tx) => this.attemptBatch(tx, limit, locked));
    } catch (error) {
      // Nothing of the batch was recorded: its deliveries are due as they were.
      this.deps.logger.warn({ err: error }, 'a batch of webhook attempts could not be recorded; it will be attempted again');
    } finally {
      locked(0);
    }
    for (const endpoint of disabled) await this.deps.notices.disabled(endpoint).catch(() => undefined);
  }

  private async attemptBatch(tx: Tx, limit: number, locked: (count: number) => void): Promise<DisabledEndpoint[]> {
    const claimed = await lockDueDeliveries(tx, limit);
    this.inFlight += claimed.length;
    locked(claimed.length);
    if (claimed.length === 0) return [];
    try {
      const secrets = this.openSecrets(
        await signingSecrets(
          tx,
          claimed.map((delivery) => delivery.endpointId),
        ),
      );
      const outcomes = await Promise.all(claimed.map((delivery) => this.send(delivery, secrets.get(delivery.endpointId) ?? [])));
      const attemptedAt = new Date();
      const attempts = claimed.map((delivery, index) => {
        const outcome = outcomes[index] as AttemptOutcome;
        return { delivery, outcome, next: nextAfter(this.deps.policy, delivery.attempt, outcome, attemptedAt.getTime()) };
      });
      await recordAttempts(
        tx,
        attempts.map(({ delivery, outcome, next }) => ({ seq: delivery.seq, outcome, next })),
        attemptedAt,
      );
      for (const { next } of attempts) this.outcomes.inc({ outcome: next.status === 'pending' ? 'retrying' : next.status });
      return await this.noteEndpoints(tx, attempts);
    } finally {
      this.inFlight -= claimed.length;
    }
  }

  /** Each endpoint's signing secrets opened once for the batch, however many of its deliveries it holds. */
  private openSecrets(sealed: ReadonlyMap<string, SealedSecret[]>): Map<string, string[]> {
    const opened = new Map<string, string[]>();
    for (const [endpointId, secrets] of sealed)
      opened.set(
        endpointId,
        secrets.map((secret) => this.deps.secrets.open(secret, endpointSecretContext(endpointId))),
      );
    return opened;
  }

  private send(delivery: ClaimedDelivery, secrets: readonly string[]): Promise<AttemptOutcome> {
    if (delivery.payload === null)
      return Promise.resolve({ responseStatus: null, latencyMs: 0, excerpt: 'the event is past its retention', retryAfterMs: null });
    return this.deps.sender.send({ url: delivery.url, eventId: delivery.eventId, payload: delivery.payload, secrets });
  }

  /** Each endpoint's streak of failures, and those to disable: answered 410, or failing too long. */
  private async noteEndpoints(
    tx: Tx,
    attempts: ReadonlyArray<{ delivery: ClaimedDelivery; outcome: AttemptOutcome }>,
  ): Promise<DisabledEndpoint[]> {
    const disabled: DisabledEndpoint[] = [];
    for (const { delivery, outcome } of attempts) {
      const status = outcome.responseStatus;
      const succeeded = status !== null && status >= 200 && status < 300;
      const endpoint = { id: delivery.endpointId, failing: delivery.endpointFailing };
      const failingTooLong = await noteEndpointOutcome(tx, endpoint, succeeded, this.deps.policy.disableAfterMs);
      const reason = status === 410 ? 'gone' : failingTooLong ? 'failing' : null;
      if (!reason) continue;
      const ended = await disableEndpoint(tx, delivery.endpointId, reason);
      if (ended) disabled.push({ ...ended, endpointId: delivery.endpointId, environment: delivery.environment, reason });
    }
    return disabled;
  }

  /** Stops claiming and waits for the batches in flight (each is recorded, or left due as it was). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.batchesInFlight]);
  }
}
