import { ledgerPartitionQueue } from '@wallet/contracts';
import {
  type Broker,
  type Channel,
  type ConsumeMessage,
  type Context,
  type Db,
  activeContext,
  inSpan,
  linksTo,
  isTransientFailure,
  type Logger,
  type OutboxRelay,
  RetryStoppedError,
  retryTransientFailures,
  runWithContext,
  type ServiceMetrics,
} from '@wallet/kit';
import type { Counter, Histogram } from 'prom-client';
import { type PartitionClaims, PartitionFencedError } from '../partitions/partition-epochs';
import type { DecodedCommand } from './posting-planner';
import { type ArrivedCommand, decodeMessage, type LockTurn, OutOfTurnError, processBatch, type SerializedOutcome } from './posting-service';
import { isCommandAlreadyPosted } from './posting-store';

interface Delivery {
  message: ConsumeMessage;
  channel: Channel;
  /** The partition whose queue it came from, and whether that channel has closed since. */
  partition: number;
  channelClosed: AbortSignal;
  /** What the message carries: one command, or the several of a `ledger.commands.v1`. */
  commands: ArrivedCommand[];
  /** The delivery's span (tracing on): a batch's commit span is a child of its first delivery's. */
  trace: Context;
}

/** The posting metrics of a process, shared by its consumers (one per shard). */
export class PostingMetrics {
  readonly outcomes: Counter<string>;
  readonly batchSizes: Histogram<string>;
  readonly deadLettered: Counter<string>;
  readonly fencedBatches: Counter<string>;
  readonly batchSeconds: Histogram<string>;

  constructor(metrics: ServiceMetrics) {
    this.outcomes = metrics.counter('ledger_commands_total', 'Ledger commands by outcome', ['outcome']);
    this.batchSizes = metrics.histogram('ledger_batch_size', 'Commands per posting transaction', [1, 5, 10, 25, 50, 100, 250, 500, 1000]);
    this.batchSeconds = metrics.histogram(
      'ledger_batch_duration_seconds',
      'Time to decide and commit one batch',
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    );
    this.fencedBatches = metrics.counter(
      'ledger_batches_fenced_total',
      'Batches refused because another writer claimed their partition since',
    );
    this.deadLettered = metrics.counter('ledger_commands_dead_lettered_total', 'Commands sent to the dead-letter queue by the consumer');
  }
}

export interface PostingConsumerOptions {
  broker: Broker;
  /** The shard its partitions are on: their commands commit there, and its relay publishes their events. */
  db: Db;
  relay: OutboxRelay;
  logger: Logger;
  metrics: PostingMetrics;
  /** The partitions whose queues it consumes. */
  partitions: readonly number[];
  /** Its claims on the partitions it is delivered, whose epochs every commit checks. */
  claims: PartitionClaims;
  /** Commands per database transaction at most. */
  batchSizeMax?: number;
  /** Batches in flight at once (each in its own transaction). */
  pipelineDepth?: number;
}

/**
 * Consumes posting commands and posts them in batches: whatever arrived while the previous
 * batch was committing forms the next one, so batches grow with load and latency stays low
 * when idle. Acks follow the commit, so a crash re-delivers and the recorded results answer.
 * A database outage stalls the batches, retried until they post, at no delivery attempt's
 * cost; only a message whose own command fails is requeued towards the dead-letter queue.
 * One consumer per shard: a batch commits in one database.
 */
export class PostingConsumer {
  private readonly pending: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private lockChain: Promise<void> = Promise.resolve();
  private finishChain: Promise<void> = Promise.resolve();
  /** Whether the last batch started committed at its first attempt. */
  private firstAttemptChain: Promise<boolean> = Promise.resolve(true);
  private readonly batchSizeMax: number;
  private readonly pipelineDepth: number;
  private readonly metrics: PostingMetrics;
  private readonly stopping = new AbortController();
  private abandoned = false;

  constructor(private readonly options: PostingConsumerOptions) {
    this.batchSizeMax = options.batchSizeMax ?? 500;
    this.pipelineDepth = options.pipelineDepth ?? 2;
    this.metrics = options.metrics;
  }

  /**
   * Consumes its partitions' queues. Each is a single-active-consumer queue: the broker
   * delivers a partition to one ledger instance at a time, and to another when that one goes.
   */
  async start(): Promise<void> {
    for (const partition of this.options.partitions) {
      await this.options.broker.consume({
        queue: ledgerPartitionQueue(partition),
        prefetch: this.batchSizeMax * (this.pipelineDepth + 1),
        onMessage: (message, channel, channelClosed) => this.accept(message, { channel, partition, channelClosed }),
      });
    }
  }

  /** Resolves when nothing is left to process (used by graceful shutdown and tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Finishes the batches in flight, giving up those still retrying through an outage (redelivered later). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.idle();
  }

  private accept(message: ConsumeMessage, from: Pick<Delivery, 'channel' | 'partition' | 'channelClosed'>): void {
    const decoded = decodeMessage(message.content, message.properties.correlationId as string | undefined);
    if (decoded.type === 'undecodable') {
      // Settled at once: nothing of it is decided, so no later ack depends on its turn.
      this.options.logger.error({ reason: decoded.reason }, 'undecodable ledger command dead-lettered');
      this.metrics.deadLettered.inc();
      settle({ message, ...from, commands: [], trace: activeContext() }, 'dead-letter');
      return;
    }
    this.pending.push({ message, ...from, commands: decoded.commands, trace: activeContext() });
    this.pump();
  }

  /** The next deliveries whose commands fill a batch (at least one delivery, however many it carries). */
  private takeBatch(): Delivery[] {
    let count = 0;
    let taken = 0;
    for (const delivery of this.pending) {
      if (taken > 0 && count + delivery.commands.length > this.batchSizeMax) break;
      count += delivery.commands.length;
      taken += 1;
    }
    return this.pending.splice(0, taken);
  }

  /**
   * Starts batches while fewer than `pipelineDepth` are in flight: one batch's database work
   * overlaps the next one's decoding and planning. Lock turns keep decisions in queue order on
   * shared accounts; finish turns keep replies and acks in queue order.
   */
  private pump(): void {
    while (this.pending.length > 0 && this.inFlight.size < this.pipelineDepth) {
      const batch = this.takeBatch();
      const running: Promise<void> = this.handleBatch(batch).finally(() => {
        this.inFlight.delete(running);
        this.pump();
      });
      this.inFlight.add(running);
    }
  }

  private takeTurn(chain: 'lockChain' | 'finishChain'): { wait: Promise<void>; done: () => void } {
    const wait = this[chain];
    let done: () => void = () => undefined;
    this[chain] = new Promise<void>((resolve) => {
      done = resolve;
    });
    return { wait, done };
  }

  private async handleBatch(batch: Delivery[]): Promise<void> {
    const finishTurn = this.takeTurn('finishChain');
    const lockTurn = this.takeTurn('lockChain');
    const earlierCommitted = this.firstAttemptChain;
    let firstAttemptDone: (committed: boolean) => void = () => undefined;
    this.firstAttemptChain = new Promise<boolean>((resolve) => {
      firstAttemptDone = resolve;
    });
    try {
      const commands = batch.flatMap((delivery) => delivery.commands.map((arrived) => arrived.command));
      this.metrics.batchSizes.observe(commands.length);
      let outcomes: SerializedOutcome[] | null = null;
      let failure: unknown = null;
      try {
        const stopTimer = this.metrics.batchSeconds.startTimer();
        outcomes = await inSpan('ledger commit', commitSpanOptions(batch, commands), () =>
          this.post(batch, commands, { lockTurn, earlierCommitted }),
        );
        this.options.logger.debug({ size: commands.length, seconds: stopTimer() }, 'batch committed');
      } catch (error) {
        failure = error;
      }
      firstAttemptDone(outcomes !== null);
      if (failure instanceof PartitionFencedError) return this.dropFenced(batch, failure);
      await finishTurn.wait;
      // A command older than its recorded result's retention that posted before is refused by
      // the journal's unique command id: the retry answers it from its entry instead. A batch
      // that gave way to a failed earlier one is retried once that one is settled.
      if (!outcomes && (isTransientFailure(failure) || isCommandAlreadyPosted(failure) || failure instanceof OutOfTurnError)) {
        // After the earlier batches settled, so their retries decide before this one's, in queue order.
        try {
          outcomes = await this.retrying('ledger command batch', () => this.post(batch, commands, { consultJournal: true }));
        } catch (error) {
          if (error instanceof RetryStoppedError) return this.abandon();
          failure = error;
        }
      }
      if (outcomes) {
        this.finish(batch, outcomes);
        return;
      }
      if (failure instanceof PartitionFencedError) return this.dropFenced(batch, failure);
      this.options.logger.warn({ err: failure, size: commands.length }, 'batch failed; retrying commands one by one');
      // One bad command must not sink its neighbours: retry each alone, and let the queue's
      // delivery limit park a message whose command still fails. The other commands of that
      // message are recorded by then, so its redelivery answers them from their records.
      for (const delivery of batch) {
        const single: SerializedOutcome[] = [];
        try {
          for (const arrived of delivery.commands) {
            const [outcome] = await this.retrying('ledger command', () =>
              this.post([delivery], [arrived.command], { consultJournal: true }),
            );
            if (!outcome) throw new Error(`no result for command ${arrived.command.commandId}`);
            single.push(outcome);
          }
        } catch (error) {
          if (error instanceof RetryStoppedError) return this.abandon();
          if (error instanceof PartitionFencedError) return this.dropFenced(batch, error);
          this.options.logger.error(
            { err: error, commands: delivery.commands.map((arrived) => arrived.command.commandId) },
            'command failed; message requeued',
          );
          settle(delivery, 'requeue');
          continue;
        }
        this.finish([delivery], single);
      }
    } finally {
      firstAttemptDone(false);
      lockTurn.done();
      finishTurn.done();
    }
  }

  /**
   * Posts under the epochs of the deliveries' partitions, claimed first where their channel has
   * not yet: a writer that lost a partition since cannot commit its commands.
   */
  private async post(
    deliveries: readonly Delivery[],
    commands: DecodedCommand[],
    options: { lockTurn?: LockTurn; earlierCommitted?: Promise<boolean>; consultJournal?: boolean },
  ): Promise<SerializedOutcome[]> {
    let epochs: Map<number, string>;
    try {
      epochs = await this.options.claims.epochsFor(deliveries);
    } catch (error) {
      // The next batch waits for this one's lock turn, which it will not take now.
      options.lockTurn?.done();
      throw error;
    }
    return processBatch(this.options.db, commands, { ...options, relay: this.options.relay, epochs });
  }

  /**
   * Another writer holds a partition of the batch: nothing of it is settled here. Its channels
   * close, so the broker hands every delivery on them back to the queue, for the writer that now
   * holds the partition, and no later ack here can reach over them.
   */
  private dropFenced(batch: readonly Delivery[], error: PartitionFencedError): void {
    this.options.logger.warn(
      { partition: error.partition, heldEpoch: error.heldEpoch, currentEpoch: error.currentEpoch, size: batch.length },
      'batch fenced: its partition has another writer; its messages go back to the queue',
    );
    this.metrics.fencedBatches.inc();
    this.options.claims.fence(batch);
    for (const channel of new Set(batch.map((delivery) => delivery.channel))) {
      channel.close().catch(() => undefined);
    }
  }

  /**
   * `work` retried through transient failures (the database down for a moment): the commands
   * are fine, so the outage must cost their messages no delivery attempt.
   */
  private retrying<Result>(what: string, work: () => Promise<Result>): Promise<Result> {
    return retryTransientFailures(work, { logger: this.options.logger, what, signal: this.stopping.signal });
  }

  /** Stopping mid-outage: what is not posted stays unacknowledged for redelivery, and later acks must not reach over it. */
  private abandon(): void {
    this.abandoned = true;
  }

  /** `outcomes` holds one result per command of `deliveries`, in their order. */
  private finish(deliveries: Delivery[], outcomes: SerializedOutcome[]): void {
    // Answers by reply-to queue: the commands of one caller in this batch get one message.
    const byReplyTo = new Map<string, Array<{ correlationId: string | undefined; outcome: SerializedOutcome }>>();
    let index = 0;
    for (const delivery of deliveries) {
      const { replyTo } = delivery.message.properties as { replyTo?: string };
      for (const arrived of delivery.commands) {
        const outcome = outcomes[index];
        index += 1;
        if (!outcome) throw new Error(`no result for command ${index} of ${outcomes.length}`);
        this.metrics.outcomes.inc({ outcome: outcome.result.duplicate ? 'duplicate' : outcome.result.status });
        if (!replyTo) continue;
        const answers = byReplyTo.get(replyTo);
        if (answers) answers.push({ correlationId: arrived.correlationId, outcome });
        else byReplyTo.set(replyTo, [{ correlationId: arrived.correlationId, outcome }]);
      }
    }
    for (const [replyTo, answers] of byReplyTo) this.reply(replyTo, answers);
    if (this.abandoned) {
      deliveries.forEach((delivery) => settle(delivery, 'ack'));
      return;
    }
    // One ack per channel for the whole batch: everything delivered before it is settled already.
    const lastByChannel = new Map<Channel, Delivery>();
    for (const delivery of deliveries) lastByChannel.set(delivery.channel, delivery);
    for (const last of lastByChannel.values()) settle(last, 'ack-up-to');
  }

  /** One message per reply-to queue: a lone `ledger.result.v1`, or `ledger.replies.v1` for several. */
  private reply(replyTo: string, answers: Array<{ correlationId: string | undefined; outcome: SerializedOutcome }>): void {
    const first = answers[0];
    if (!first) return;
    runWithContext({ correlationId: first.correlationId ?? first.outcome.result.commandId }, () => {
      try {
        if (answers.length === 1) {
          this.options.broker.sendTransient(replyTo, Buffer.from(first.outcome.resultText), {
            correlationId: first.correlationId,
            type: first.outcome.result.type,
          });
          return;
        }
        // Built from the results' texts, each serialized once for its record, event and reply.
        const replies = answers.map(
          (answer) => `{"correlationId":${JSON.stringify(answer.correlationId ?? null)},"result":${answer.outcome.resultText}}`,
        );
        this.options.broker.sendTransient(replyTo, Buffer.from(`{"type":"ledger.replies.v1","replies":[${replies.join(',')}]}`), {
          type: 'ledger.replies.v1',
        });
      } catch (error) {
        // The results are recorded: a caller that missed one gets it again by re-sending or from the event.
        this.options.logger.warn({ err: error, replies: answers.length }, 'reply could not be sent');
      }
    });
  }
}

/**
 * One commit serves the commands of many requests: its span continues the first delivery's trace
 * and links to the span each command was sent from, so every request's trace reaches it.
 */
function commitSpanOptions(batch: readonly Delivery[], commands: readonly DecodedCommand[]): Parameters<typeof inSpan>[1] {
  return {
    parent: batch[0]?.trace,
    links: linksTo(commands.map((decoded) => (decoded.type === 'invalid' ? undefined : decoded.command))),
    attributes: { 'ledger.batch.commands': commands.length },
  };
}

function settle(delivery: Delivery, how: 'ack' | 'ack-up-to' | 'requeue' | 'dead-letter'): void {
  try {
    if (how === 'ack' || how === 'ack-up-to') delivery.channel.ack(delivery.message, how === 'ack-up-to');
    else delivery.channel.nack(delivery.message, false, how === 'requeue');
  } catch {
    // The channel closed under us: the broker re-delivers, and the recorded result answers.
  }
}
