import type { Channel, ChannelModel } from 'amqplib';
import { type LedgerResultV1, parseLedgerReplies } from '@wallet/contracts';
import { brokerAddresses, connectToBroker, contextFrom, type Logger, SpanKind, startSpan } from '@wallet/kit';

/** A caller waiting for the ledger's answer to one command. */
export interface PendingReply {
  /** The ledger's result, or null when the deadline passed first (the command may still post). */
  readonly result: Promise<LedgerResultV1 | null>;
  /** Stops waiting (the command was never committed); the promise resolves null. */
  cancel(): void;
}

interface Waiter {
  resolve: (result: LedgerResultV1 | null) => void;
  timer: NodeJS.Timeout;
}

const RECONNECT_DELAY_MS_MAX = 5_000;

/**
 * This instance's exclusive reply queue and the callers waiting on it, by command id. Commands
 * sent through the outbox name the queue as `replyTo` and their command id as correlation id;
 * the ledger answers there as soon as it committed. A reply nobody waits for (a caller past its
 * deadline, another instance's) is dropped: the ledger's event finishes the record anyway.
 *
 * The queue lives on its own connection: when it drops, `replyTo` is undefined until it is back
 * (commands then go without one and callers wait for the event, which also calls `deliver`).
 */
export class PostingReplies {
  private readonly waiters = new Map<string, Waiter[]>();
  private connection: ChannelModel | null = null;
  private queue: string | null = null;
  private closed = false;
  private reconnectAttempt = 0;
  /** Where the next connection attempt starts: after a lost node, the cluster's next one. */
  private nextAddress = 0;

  constructor(private readonly options: { amqpUrl: string; logger: Logger; name: string }) {}

  async start(): Promise<void> {
    await this.connect();
  }

  /** The queue to name as `replyTo`, or undefined while it is being re-established. */
  get replyTo(): string | undefined {
    return this.queue ?? undefined;
  }

  /**
   * Starts waiting for `commandId`'s result. Call it before the transaction that enqueues the
   * command commits, so an answer arriving before the caller resumes is not missed. Past the
   * deadline the caller gets null once `onDeadline` (which must not throw) has finished.
   */
  expect(commandId: string, timeoutMs: number, onDeadline?: () => Promise<void>): PendingReply {
    let waiter!: Waiter;
    const result = new Promise<LedgerResultV1 | null>((resolve) => {
      waiter = { resolve, timer: setTimeout(() => this.expire(commandId, waiter, onDeadline), timeoutMs) };
    });
    const list = this.waiters.get(commandId);
    if (list) list.push(waiter);
    else this.waiters.set(commandId, [waiter]);
    return { result, cancel: () => this.settle(commandId, waiter, null) };
  }

  /** Hands a result to whoever waits for its command here (from a reply or from the ledger's event). */
  deliver(result: LedgerResultV1): void {
    const list = this.waiters.get(result.commandId);
    if (!list) return;
    this.waiters.delete(result.commandId);
    for (const waiter of list) {
      clearTimeout(waiter.timer);
      waiter.resolve(result);
    }
  }

  /** How many callers are waiting (for metrics and tests). */
  get waiting(): number {
    let count = 0;
    for (const list of this.waiters.values()) count += list.length;
    return count;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [commandId, list] of [...this.waiters]) for (const waiter of list) this.settle(commandId, waiter, null);
    const connection = this.connection;
    this.connection = null;
    this.queue = null;
    if (connection) await connection.close().catch(() => undefined);
  }

  private settle(commandId: string, waiter: Waiter, result: LedgerResultV1 | null): void {
    this.forget(commandId, waiter);
    waiter.resolve(result);
  }

  /** A result arriving while `onDeadline` runs is no longer this waiter's: the caller has moved on to its null. */
  private expire(commandId: string, waiter: Waiter, onDeadline: (() => Promise<void>) | undefined): void {
    if (!onDeadline) return this.settle(commandId, waiter, null);
    this.forget(commandId, waiter);
    const answerNull = () => waiter.resolve(null);
    onDeadline().then(answerNull, answerNull);
  }

  private forget(commandId: string, waiter: Waiter): void {
    clearTimeout(waiter.timer);
    const list = this.waiters.get(commandId);
    if (!list) return;
    const rest = list.filter((each) => each !== waiter);
    if (rest.length === 0) this.waiters.delete(commandId);
    else this.waiters.set(commandId, rest);
  }

  private async connect(): Promise<void> {
    const addresses = brokerAddresses(this.options.amqpUrl);
    const { connection, index } = await connectToBroker(addresses, this.options.name, this.nextAddress);
    this.nextAddress = (index + 1) % addresses.length;
    connection.on('error', (error: Error) => this.options.logger.warn({ err: error }, 'posting reply connection error'));
    connection.on('close', () => this.onClose(connection));
    const channel: Channel = await connection.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    await channel.consume(queue, (message) => message && this.onReply(message.content), { noAck: true });
    if (this.closed) {
      await connection.close().catch(() => undefined);
      return;
    }
    this.connection = connection;
    this.queue = queue;
    this.reconnectAttempt = 0;
  }

  private onReply(content: Buffer): void {
    let replies;
    try {
      replies = parseLedgerReplies(JSON.parse(content.toString('utf8')), null);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'unreadable ledger reply dropped');
      return;
    }
    if (replies) for (const reply of replies) this.deliverReply(reply.result);
    else this.options.logger.warn('malformed ledger reply dropped');
  }

  /** A reply marks its arrival in its command's trace (the waiting request finishes the record there). */
  private deliverReply(result: LedgerResultV1): void {
    if (result.traceparent === undefined) return this.deliver(result);
    const { span } = startSpan('ledger reply receive', {
      kind: SpanKind.CONSUMER,
      parent: contextFrom(result),
      attributes: { 'messaging.system': 'rabbitmq', 'ledger.status': result.status },
    });
    this.deliver(result);
    span.end();
  }

  private onClose(connection: ChannelModel): void {
    if (this.connection !== connection) return;
    this.connection = null;
    this.queue = null;
    if (this.closed) return;
    this.options.logger.warn('posting reply connection closed; reconnecting');
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    while (!this.closed && !this.connection) {
      this.reconnectAttempt += 1;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** this.reconnectAttempt, RECONNECT_DELAY_MS_MAX)));
      if (this.closed) return;
      try {
        await this.connect();
        this.options.logger.info('posting reply queue re-established');
      } catch (error) {
        this.options.logger.warn({ err: error, attempt: this.reconnectAttempt }, 'posting reply reconnect failed');
      }
    }
  }
}
