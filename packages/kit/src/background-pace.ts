import { z } from 'zod';

/**
 * Background work (a full reconciliation run) that gives way to the service's own traffic: while
 * the service answers requests or messages, the work goes in small steps with rests between
 * them, so it takes a small share of the machine and the traffic keeps its latency; while the
 * service is idle, it goes at full speed.
 */

const BUCKET_MS = 100;
const BUCKETS = 10;

/** Requests and messages this process handled for others, per 100 ms over the last second. */
class ForegroundActivity {
  private readonly counts = new Float64Array(BUCKETS);
  private readonly stamps = new Float64Array(BUCKETS);

  note(count = 1): void {
    const bucket = Math.floor(Date.now() / BUCKET_MS);
    const at = bucket % BUCKETS;
    if (this.stamps[at] !== bucket) {
      this.stamps[at] = bucket;
      this.counts[at] = 0;
    }
    this.counts[at] = (this.counts[at] ?? 0) + count;
  }

  /** Over the last second. */
  perSecond(): number {
    const now = Math.floor(Date.now() / BUCKET_MS);
    let total = 0;
    for (let at = 0; at < BUCKETS; at += 1) if (now - (this.stamps[at] ?? 0) < BUCKETS) total += this.counts[at] ?? 0;
    return total;
  }
}

/** This process's traffic: the kit's HTTP apps note public requests, its consumers every message. */
export const foreground = new ForegroundActivity();

export const backgroundPaceConfigShape = {
  /** While the service is busy, background work takes this share of the time, in steps this share of their full size. */
  BACKGROUND_BUSY_SHARE: z.coerce.number().min(0.01).max(1).default(0.05),
  /** Requests and messages per second from which a service counts as busy. */
  BACKGROUND_BUSY_PER_SECOND: z.coerce.number().min(0).default(20),
};

export interface PaceSettings {
  busyShare: number;
  busyPerSecond: number;
}

export class BackgroundPace {
  constructor(
    private readonly settings: PaceSettings,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  static fromConfig(config: { BACKGROUND_BUSY_SHARE: number; BACKGROUND_BUSY_PER_SECOND: number }): BackgroundPace {
    return new BackgroundPace({ busyShare: config.BACKGROUND_BUSY_SHARE, busyPerSecond: config.BACKGROUND_BUSY_PER_SECOND });
  }

  get busy(): boolean {
    return foreground.perSecond() >= this.settings.busyPerSecond;
  }

  /** The size of the next step: all of `full` while idle, its busy share while busy (a short step keeps the traffic's tail short). */
  size(full: number): number {
    return this.busy ? Math.max(1, Math.ceil(full * this.settings.busyShare)) : full;
  }

  /** After a step that took `ms`: on at once while idle; while busy, a rest that leaves the work its share of the time. */
  async rest(ms: number): Promise<void> {
    if (!this.busy) return;
    const share = this.settings.busyShare;
    await this.sleep((ms * (1 - share)) / share);
  }

  /** Runs a step and rests after it. */
  async step<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    await this.rest(performance.now() - started);
    return result;
  }
}

/** Full speed whatever the traffic: for tests and tools. */
export const UNPACED = new BackgroundPace({ busyShare: 1, busyPerSecond: Number.POSITIVE_INFINITY });
