import type { Logger, ServiceMetrics } from '@wallet/kit';
import type { NewRequestLog, RequestLogStore } from './request-log-store';

/**
 * Records leave the request path: `record` only buffers, and batches are inserted every
 * `flushIntervalMs` or as soon as a batch is full. A failed insert costs its batch, never a
 * request; a database down for long costs what exceeds `maxBuffered`, never memory.
 */
export interface RequestLogWriter {
  record(log: NewRequestLog): void;
  /** Inserts everything buffered so far. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left; later records are dropped. */
  close(): Promise<void>;
}

export interface RequestLogWriterOptions {
  store: RequestLogStore;
  logger: Logger;
  metrics: ServiceMetrics;
  flushIntervalMs: number;
  batchSize?: number;
  maxBuffered?: number;
}

/** One statement a batch; 500 records keep each one short. */
const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_MAX_BUFFERED = 20_000;

export function createRequestLogWriter(options: RequestLogWriterOptions): RequestLogWriter {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  const written = options.metrics.counter('gateway_request_logs_written_total', 'Request log records inserted');
  const dropped = options.metrics.counter('gateway_request_logs_dropped_total', 'Request log records lost, by reason', ['reason']);
  let buffer: NewRequestLog[] = [];
  let closed = false;
  /** One flush at a time, so batches reach the database in the order they were recorded. */
  let flushing: Promise<void> = Promise.resolve();

  async function insertBuffered(): Promise<void> {
    while (buffer.length > 0) {
      const batch = buffer.slice(0, batchSize);
      buffer = buffer.slice(batch.length);
      try {
        await options.store.insert(batch);
        written.inc(batch.length);
      } catch (error) {
        dropped.inc({ reason: 'insert_failed' }, batch.length);
        options.logger.warn({ err: error, records: batch.length }, 'request log batch insert failed; batch dropped');
      }
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(insertBuffered);
    return flushing;
  }

  const timer = setInterval(() => {
    if (buffer.length > 0) void flush();
  }, options.flushIntervalMs);
  timer.unref();

  return {
    record(log) {
      if (closed) {
        dropped.inc({ reason: 'closed' });
        return;
      }
      if (buffer.length >= maxBuffered) {
        dropped.inc({ reason: 'buffer_full' });
        return;
      }
      buffer.push(log);
      if (buffer.length % batchSize === 0) void flush();
    },
    flush,
    async close() {
      closed = true;
      clearInterval(timer);
      await flush();
    },
  };
}
