import type { Channel, ConsumeMessage } from './amqp';
import { isTransientFailure } from './dependency-errors';
import type { Logger } from './logger';

/** Thrown by retryTransientFailures when its signal aborted while the work still failed transiently; `cause` is the last failure. */
export class RetryStoppedError extends Error {
  constructor(what: string, cause: unknown) {
    super(`stopped retrying ${what}`, { cause });
    this.name = 'RetryStoppedError';
  }
}

export interface TransientRetryOptions {
  logger: Logger;
  /** What is retried, for the log. */
  what: string;
  /** Aborted when retrying is pointless: the consumer is stopping, or the delivery's channel closed. */
  signal?: AbortSignal;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `work` until it succeeds or fails for a reason of its own (thrown as is). A transient
 * failure (a dependency down, a serialization failure or deadlock: isTransientFailure) is
 * retried after a pause that doubles up to `maxDelayMs`, for as long as it lasts: the work is
 * fine and the outage is not its fault, so it must not be counted against it (a consumer would
 * spend its message's delivery limit and dead-letter a good message). Only `signal` ends the
 * retries early, with RetryStoppedError.
 */
export async function retryTransientFailures<Result>(work: () => Promise<Result>, options: TransientRetryOptions): Promise<Result> {
  const initialDelayMs = options.initialDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await work();
      if (attempt > 1) options.logger.info({ attempts: attempt }, `${options.what} succeeded after a transient failure`);
      return result;
    } catch (error) {
      if (!isTransientFailure(error)) throw error;
      if (options.signal?.aborted) throw new RetryStoppedError(options.what, error);
      // Once, then quietly: an outage would otherwise log every retry of every message.
      if (attempt === 1) options.logger.warn({ err: error }, `${options.what} failed transiently; retrying until it succeeds`);
      else options.logger.debug({ err: error, attempt }, `${options.what} still failing transiently`);
      const delay = Math.min(initialDelayMs * 2 ** (attempt - 1), maxDelayMs);
      // Jitter, so the consumers an outage stalled together do not all come back in the same instant.
      await pause(delay * (0.8 + Math.random() * 0.4), options.signal);
      if (options.signal?.aborted) throw new RetryStoppedError(options.what, error);
    }
  }
}

/** A message taken from a queue on its channel. */
export interface QueueDelivery {
  message: ConsumeMessage;
  channel: Channel;
}

function settleQuietly(delivery: QueueDelivery, how: 'ack' | 'ack-up-to' | 'requeue', logger: Logger): void {
  // A closed channel means the broker redelivers, which idempotent consumers make harmless.
  try {
    if (how === 'requeue') delivery.channel.nack(delivery.message, false, true);
    else delivery.channel.ack(delivery.message, how === 'ack-up-to');
  } catch (error) {
    logger.warn({ err: error }, 'a delivery could not be settled; it will be redelivered');
  }
}

/** One `multiple` ack per channel, unless stopping: then deliveries left unacknowledged before these may sit below them. */
function acknowledge(batch: readonly QueueDelivery[], options: TransientRetryOptions): void {
  if (options.signal?.aborted) {
    batch.forEach((delivery) => settleQuietly(delivery, 'ack', options.logger));
    return;
  }
  const lastByChannel = new Map<Channel, QueueDelivery>();
  for (const delivery of batch) lastByChannel.set(delivery.channel, delivery);
  for (const last of lastByChannel.values()) settleQuietly(last, 'ack-up-to', options.logger);
}

/**
 * Applies a batch of deliveries with `apply` and settles them: transient failures are retried
 * (retryTransientFailures) with the deliveries left unacknowledged, so an outage costs none of
 * them a delivery attempt. Applied, the batch is acknowledged with one `multiple` ack per
 * channel (callers apply batches in arrival order, so every earlier delivery is settled by
 * then). When it fails for a reason of its own, each delivery is applied alone, so only the
 * one that fails on its content is requeued (the queue's delivery limit parks it in the
 * dead-letter queue) and its neighbours are not. Stopped (`signal`), what is not applied stays
 * unacknowledged for redelivery, and acks no longer reach over earlier deliveries.
 * Resolves to the deliveries applied.
 */
export async function applyDeliveryBatch<Item extends QueueDelivery>(
  batch: readonly Item[],
  apply: (deliveries: readonly Item[]) => Promise<void>,
  options: TransientRetryOptions,
): Promise<Item[]> {
  if (batch.length === 0) return [];
  try {
    await retryTransientFailures(() => apply(batch), options);
  } catch (error) {
    if (error instanceof RetryStoppedError) return [];
    if (batch.length > 1) {
      options.logger.warn({ err: error, deliveries: batch.length }, `${options.what} failed; applying its deliveries one by one`);
      return applyOneByOne(batch, apply, options);
    }
    options.logger.warn({ err: error }, `${options.what} failed; requeued`);
    settleQuietly(batch[0] as Item, 'requeue', options.logger);
    return [];
  }
  acknowledge(batch, options);
  return [...batch];
}

/** Each delivery of a batch that failed as a whole, alone: acknowledged when applied, requeued when it fails by itself. */
async function applyOneByOne<Item extends QueueDelivery>(
  batch: readonly Item[],
  apply: (deliveries: readonly Item[]) => Promise<void>,
  options: TransientRetryOptions,
): Promise<Item[]> {
  const applied: Item[] = [];
  for (const delivery of batch) {
    try {
      await retryTransientFailures(() => apply([delivery]), options);
    } catch (error) {
      if (error instanceof RetryStoppedError) return applied;
      options.logger.warn({ err: error }, `${options.what} failed on one delivery; requeued`);
      settleQuietly(delivery, 'requeue', options.logger);
      continue;
    }
    settleQuietly(delivery, 'ack', options.logger);
    applied.push(delivery);
  }
  return applied;
}
