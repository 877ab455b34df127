import type { Logger } from '@wallet/kit';
import type { RequestLogStore } from './request-log-store';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_BATCH_SIZE = 5_000;
/** Bounds one run; a backlog bigger than this is worked off over the next runs. */
const MAX_BATCHES_PER_RUN = 200;

export interface RequestLogRetention {
  /** One pass: deletes records older than the retention, batch by batch; returns how many. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

export interface RequestLogRetentionOptions {
  store: RequestLogStore;
  retentionDays: number;
  intervalMs: number;
  logger: Logger;
  batchSize?: number;
  nowMs?: () => number;
}

/**
 * Every `intervalMs`, deletes what is older than `retentionDays`. Small batches, each its own
 * statement, so neither locks nor one long transaction hold back the inserts of live traffic.
 */
export function startRequestLogRetention(options: RequestLogRetentionOptions): RequestLogRetention {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const nowMs = options.nowMs ?? Date.now;
  let running: Promise<number> | null = null;

  async function purge(): Promise<number> {
    const cutoff = new Date(nowMs() - options.retentionDays * DAY_MS);
    let purged = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      const deleted = await options.store.purgeCreatedBefore(cutoff, batchSize);
      purged += deleted;
      if (deleted < batchSize) break;
    }
    if (purged > 0) options.logger.info({ purged, cutoff: cutoff.toISOString() }, 'expired request logs purged');
    return purged;
  }

  function runOnce(): Promise<number> {
    // A pass already under way is joined, not doubled.
    running ??= purge().finally(() => {
      running = null;
    });
    return running;
  }

  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => options.logger.warn({ err: error }, 'request log purge failed'));
  }, options.intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
