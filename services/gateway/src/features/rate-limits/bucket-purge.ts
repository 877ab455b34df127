import { type Logger, type Repeating, startRepeating } from '@wallet/kit';
import type { RateLimiter } from './rate-limiter';

const PURGE_BATCH = 1_000;
/** Bounds one run; whatever is left waits for the next one. */
const MAX_BATCHES_PER_RUN = 100;

/** Every `intervalMs`, deletes buckets idle long enough to be full again, in bounded batches. */
export function startBucketPurge(limiter: RateLimiter, options: { intervalMs: number; logger: Logger }): Repeating {
  const run = async () => {
    let purged = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      const deleted = await limiter.purgeIdle(PURGE_BATCH);
      purged += deleted;
      if (deleted < PURGE_BATCH) break;
    }
    if (purged > 0) options.logger.debug({ purged }, 'idle rate-limit buckets purged');
  };
  return startRepeating(run, {
    intervalMs: options.intervalMs,
    onError: (error) => options.logger.warn({ err: error }, 'rate-limit bucket purge failed'),
  });
}
