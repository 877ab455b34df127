import type { Db } from '../db';
import type { Logger } from '../logger';
import { IDEMPOTENCY_TABLE } from './table';

export const DEFAULT_PURGE_BATCH_SIZE = 1_000;
/** Bounds one pass; a bigger backlog is worked off over the next passes. */
export const DEFAULT_PURGE_MAX_BATCHES = 100;
export const DEFAULT_PURGE_INTERVAL_MS = 10 * 60_000;

// Past retention, and not held by a live attempt. SKIP LOCKED leaves rows that a claim or a
// business transaction is touching to the next pass instead of waiting on them.
const PURGE_SQL = `
  DELETE FROM ${IDEMPOTENCY_TABLE}
  WHERE (tenant_id, environment, idempotency_key) IN (
    SELECT tenant_id, environment, idempotency_key FROM ${IDEMPOTENCY_TABLE}
    WHERE expires_at <= now() AND (status = 'completed' OR locked_until <= now())
    ORDER BY expires_at
    LIMIT ?
    FOR UPDATE SKIP LOCKED
  )`;

/**
 * Deletes keys past their retention in batches of `batchSize`, each its own short statement so
 * live claims never wait behind one long delete. Returns how many it deleted.
 */
export async function purgeExpiredIdempotencyKeys(db: Db, batchSize = DEFAULT_PURGE_BATCH_SIZE, maxBatches = DEFAULT_PURGE_MAX_BATCHES): Promise<number> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  let purged = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const result = await db.raw<{ rowCount: number | null }>(PURGE_SQL, [batchSize]);
    const deleted = result.rowCount ?? 0;
    purged += deleted;
    if (deleted < batchSize) break;
  }
  return purged;
}

export interface IdempotencyPurge {
  /** One pass now; a pass already under way is joined, not doubled. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

export interface IdempotencyPurgeOptions {
  db: Db;
  logger: Logger;
  intervalMs?: number;
  batchSize?: number;
}

/** Runs the purge every `intervalMs` until stopped; a service starts it in `wire` and stops it in `Features.stop`. */
export function startIdempotencyPurge(options: IdempotencyPurgeOptions): IdempotencyPurge {
  let running: Promise<number> | null = null;

  function runOnce(): Promise<number> {
    running ??= purgeExpiredIdempotencyKeys(options.db, options.batchSize ?? DEFAULT_PURGE_BATCH_SIZE)
      .then((purged) => {
        if (purged > 0) options.logger.debug({ purged }, 'expired idempotency keys purged');
        return purged;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => options.logger.warn({ err: error }, 'idempotency key purge failed'));
  }, options.intervalMs ?? DEFAULT_PURGE_INTERVAL_MS);
  timer.unref();

  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
