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

/** While idle, a step grows towards this long, no longer: traffic that starts meanwhile waits at most about this for a core. */
const IDLE_STEP_MS = 150;
/**
 * While busy, a step lasts about this long at most: a request arriving behind it shares a core
 * with it for no longer. (A busy share of a full step, 2,500 of the ledger's entries, held a core
 * for tens of milliseconds over a 10-million-line journal.)
 */
const BUSY_STEP_MS = 10;

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

  /** The steps of one loop of background work, each at most `full` items. */
  steps(full: number): PacedSteps {
    return new PacedSteps(this, full, this.settings.busyShare);
  }

  /** After a step that took `ms`: on at once while idle; while busy, a rest that leaves the work its share of the time. */
  async rest(ms: number): Promise<void> {
    if (!this.busy) return;
    const share = this.settings.busyShare;
    await this.sleep((ms * (1 - share)) / share);
  }
}

/**
 * Step sizes for one loop: while busy, the busy share of a full step, or fewer when that takes
 * longer than BUSY_STEP_MS at the pace measured; while idle, growing from that (four times each
 * step) to as many items as IDLE_STEP_MS takes at that pace, at most a full step, so no step
 * holds a core for long when traffic arrives.
 */
export class PacedSteps {
  private idleSize: number;
  /** Items per millisecond in the last step; null before the first. */
  private itemsPerMs: number | null = null;

  constructor(
    private readonly pace: BackgroundPace,
    private readonly full: number,
    private readonly share: number,
  ) {
    this.idleSize = this.smallest;
  }

  private get smallest(): number {
    return Math.max(1, Math.ceil(this.full * this.share));
  }

  /** How many items the next step takes. */
  size(): number {
    if (!this.pace.busy) return this.idleSize;
    return this.itemsPerMs === null ? this.smallest : Math.max(1, Math.min(this.smallest, Math.floor(this.itemsPerMs * BUSY_STEP_MS)));
  }

  /** After a step of `items` that took `ms`: the next idle size, and the rest the traffic asks for. */
  async after(items: number, ms: number): Promise<void> {
    if (items > 0 && ms > 0) {
      this.itemsPerMs = items / ms;
      this.idleSize = Math.max(this.smallest, Math.min(this.full, this.idleSize * 4, Math.floor(this.itemsPerMs * IDLE_STEP_MS)));
    }
    await this.pace.rest(ms);
  }
}

/** Full speed whatever the traffic: for tests and tools. */
export const UNPACED = new BackgroundPace({ busyShare: 1, busyPerSecond: Number.POSITIVE_INFINITY });
