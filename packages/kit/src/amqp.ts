import { setMaxListeners } from 'node:events';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage, type Options } from 'amqplib';
import { foreground } from './background-pace';
import { DependencyUnavailableError } from './dependency-errors';
import type { Logger } from './logger';
import { contextFrom, failSpan, SpanKind, startSpan, withContext } from './tracing';

export type { Channel, ConfirmChannel, ConsumeMessage };

export interface BrokerOptions {
  /** One AMQP URL, or the nodes of a cluster separated by commas (brokerAddresses). */
  url: string;
  name: string;
  logger: Logger;
  /** Declares exchanges, queues and bindings; runs on every (re)connect. */
  topology?: (channel: Channel) => Promise<void>;
  reconnectDelayMs?: number;
  reconnectDelayMaxMs?: number;
  /**
   * The AMQP heartbeat asked for: a process that stops answering (frozen, cut off) loses its
   * connection, and its single-active-consumer queues their consumer, after about twice this.
   */
  heartbeatSeconds?: number;
}

export interface ConsumerSpec {
  queue: string;
  prefetch: number;
  /**
   * `channelClosed` aborts when the message's channel closes: the broker then redelivers it, so
   * work still retrying it (retryTransientFailures) can stop.
   */
  onMessage: (message: ConsumeMessage, channel: Channel, channelClosed: AbortSignal) => void | Promise<void>;
}

/** The broker addresses an `AMQP_URL` names: one URL, or a cluster's nodes separated by commas. */
export function brokerAddresses(url: string): string[] {
  return url
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
}

// Long enough that a queue that keeps refusing its consumer does not spin.
const CONSUMER_RESTART_DELAY_MS = 1_000;

// A node that accepts TCP but never answers (a frozen VM) must not hold a reconnect forever.
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A connection to the first of `addresses` that accepts one, tried in turn from index `from` and
 * round: a service told of every node of a cluster gets past one that is down. `noDelay`: without
 * it every request/reply round trip waits on Nagle's algorithm (~40 ms). Throws the last failure
 * when no node accepts.
 */
export async function connectToBroker(
  addresses: readonly string[],
  name: string,
  from = 0,
  heartbeatSeconds?: number,
): Promise<{ connection: ChannelModel; index: number }> {
  let failure: unknown = new Error('no broker address');
  for (let tried = 0; tried < addresses.length; tried++) {
    const index = (from + tried) % addresses.length;
    try {
      const connection = await amqp.connect(withHeartbeat(addresses[index] as string, heartbeatSeconds), {
        noDelay: true,
        timeout: CONNECT_TIMEOUT_MS,
        clientProperties: { connection_name: name },
      });
      return { connection, index };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/** amqplib reads the heartbeat from the URL's query, not from the socket options. */
function withHeartbeat(address: string, heartbeatSeconds: number | undefined): string {
  if (heartbeatSeconds === undefined) return address;
  const url = new URL(address);
  url.searchParams.set('heartbeat', String(heartbeatSeconds));
  return url.toString();
}

/**
 * One connection with a confirm channel for publishing and one channel per consumer. When the
 * connection drops it reconnects with backoff, to the next of the cluster's nodes first,
 * re-declares the topology and re-starts the consumers; unacked messages go back to their queue,
 * which is why consumers are idempotent.
 */
export class Broker {
  private connection: ChannelModel | null = null;
  private publishChannel: ConfirmChannel | null = null;
  private readonly consumers: ConsumerSpec[] = [];
  private readonly declarations: Array<(channel: Channel) => Promise<void>> = [];
  private connecting: Promise<void> | null = null;
  private closed = false;
  private attempt = 0;
  private connections = 0;
  private readonly addresses: string[];
  /** Where the next connection attempt starts: after a lost node, its successor. */
  private nextAddress = 0;
  private connectedAddress: number | null = null;

  constructor(private readonly options: BrokerOptions) {
    this.addresses = brokerAddresses(options.url);
  }

  async start(): Promise<void> {
    await this.connect();
  }

  /** How many times a connection was established (1 after start, more after reconnects). */
  get connectionCount(): number {
    return this.connections;
  }

  /** The address of the node this broker is connected to, or null between connections. */
  get connectedTo(): string | null {
    return this.connectedAddress === null ? null : (this.addresses[this.connectedAddress] ?? null);
  }

  get isConnected(): boolean {
    return this.connection !== null && this.publishChannel !== null;
  }

  private async connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = (async () => {
      const { connection, index } = await connectToBroker(
        this.addresses,
        this.options.name,
        this.nextAddress,
        this.options.heartbeatSeconds,
      );
      this.nextAddress = index;
      connection.on('error', (error: Error) => this.options.logger.warn({ err: error }, 'amqp connection error'));
      connection.on('close', () => this.onClose());
      const channel = await connection.createConfirmChannel();
      channel.on('error', (error: Error) => this.options.logger.warn({ err: error }, 'amqp publish channel error'));
      if (this.options.topology) await this.options.topology(channel);
      for (const declaration of this.declarations) await declaration(channel);
      this.connection = connection;
      this.publishChannel = channel;
      this.connectedAddress = index;
      this.attempt = 0;
      this.connections += 1;
      for (const consumer of this.consumers) await this.startConsumer(connection, consumer);
    })();
    try {
      await this.connecting;
    } finally {
      this.connecting = null;
    }
  }

  private onClose(): void {
    this.connection = null;
    this.publishChannel = null;
    // The node that was lost is tried last.
    if (this.connectedAddress !== null) this.nextAddress = (this.connectedAddress + 1) % this.addresses.length;
    this.connectedAddress = null;
    if (this.closed) return;
    this.options.logger.warn('amqp connection closed; reconnecting');
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    while (!this.closed) {
      this.attempt += 1;
      const delay = Math.min((this.options.reconnectDelayMs ?? 250) * 2 ** (this.attempt - 1), this.options.reconnectDelayMaxMs ?? 10_000);
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.closed) return;
      try {
        await this.connect();
        this.options.logger.info('amqp reconnected');
        return;
      } catch (error) {
        this.options.logger.warn({ err: error, attempt: this.attempt }, 'amqp reconnect failed');
      }
    }
  }

  private async startConsumer(connection: ChannelModel, spec: ConsumerSpec): Promise<void> {
    const channel = await connection.createChannel();
    channel.on('error', (error: Error) => this.options.logger.warn({ err: error, queue: spec.queue }, 'amqp consumer channel error'));
    const closed = new AbortController();
    // Every message in flight may wait on it (prefetch of them at most).
    setMaxListeners(spec.prefetch + 1, closed.signal);
    channel.once('close', () => {
      closed.abort();
      this.restartConsumerLater(connection, spec);
    });
    await channel.prefetch(spec.prefetch);
    await channel.consume(spec.queue, (message) => {
      if (!message) return;
      foreground.note();
      const headers = message.properties.headers as Record<string, unknown> | undefined;
      if (typeof headers?.traceparent === 'string') return this.handleTraced(spec, message, channel, closed.signal, headers);
      this.handle(spec, message, channel, closed.signal);
    });
  }

  /**
   * A consumer channel that closed while its connection lives on (its consumer gave its
   * deliveries back, or the broker closed it) consumes again on a new channel; after a lost
   * connection, the reconnect restarts every consumer instead.
   */
  private restartConsumerLater(connection: ChannelModel, spec: ConsumerSpec): void {
    setTimeout(() => {
      if (this.closed || this.connection !== connection) return;
      this.startConsumer(connection, spec).catch((error: unknown) =>
        this.options.logger.warn({ err: error, queue: spec.queue }, 'amqp consumer could not restart; it will on the next reconnect'),
      );
    }, CONSUMER_RESTART_DELAY_MS).unref();
  }

  private handle(spec: ConsumerSpec, message: ConsumeMessage, channel: Channel, channelClosed: AbortSignal): Promise<void> {
    // A handler that fails after its channel closed (an ack during shutdown) must not become
    // an unhandled rejection: the message was not acked, so the broker redelivers it.
    return Promise.resolve()
      .then(() => spec.onMessage(message, channel, channelClosed))
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error, queue: spec.queue }, 'amqp message handler failed after its channel closed'),
      );
  }

  /** A delivery that names its sender's span: handled in a consumer span that continues that trace. */
  private handleTraced(
    spec: ConsumerSpec,
    message: ConsumeMessage,
    channel: Channel,
    channelClosed: AbortSignal,
    headers: Record<string, unknown>,
  ): void {
    const { span, context } = startSpan(`${spec.queue} process`, {
      kind: SpanKind.CONSUMER,
      parent: contextFrom(headers),
      attributes: {
        'messaging.system': 'rabbitmq',
        'messaging.destination.name': spec.queue,
        'messaging.message.id': String(message.properties.messageId ?? ''),
      },
    });
    if (message.fields.redelivered) span.setAttribute('messaging.rabbitmq.redelivered', true);
    withContext(context, () => this.handle(spec, message, channel, channelClosed))
      .catch((error: unknown) => failSpan(span, error))
      .finally(() => span.end());
  }

  /**
   * Topology known only once the service is wired (bindings that follow what its features
   * registered): declared now and again after every reconnect, after the static topology.
   */
  async declare(declaration: (channel: Channel) => Promise<void>): Promise<void> {
    this.declarations.push(declaration);
    if (this.publishChannel) await declaration(this.publishChannel);
  }

  /** Registers a consumer, started now and again after every reconnect. */
  async consume(spec: ConsumerSpec): Promise<void> {
    this.consumers.push(spec);
    if (this.connection) await this.startConsumer(this.connection, spec);
  }

  private channel(): ConfirmChannel {
    if (!this.publishChannel) throw new DependencyUnavailableError('broker', 'broker is not connected');
    return this.publishChannel;
  }

  /** Publishes and resolves once the broker confirmed it (persistent by default). */
  async publish(exchange: string, routingKey: string, body: Buffer, options: Options.Publish = {}): Promise<void> {
    const channel = this.channel();
    await new Promise<void>((resolve, reject) => {
      channel.publish(exchange, routingKey, body, { persistent: true, contentType: 'application/json', ...options }, (error) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      );
    });
  }

  /** Publishes many and waits for every confirm once: the cheap way to publish a batch. */
  async publishBatch(messages: Array<{ exchange: string; routingKey: string; body: Buffer; options?: Options.Publish }>): Promise<void> {
    const channel = this.channel();
    for (const message of messages) {
      channel.publish(message.exchange, message.routingKey, message.body, {
        persistent: true,
        contentType: 'application/json',
        ...message.options,
      });
    }
    await channel.waitForConfirms();
  }

  /** Binds `queue` to `exchange` for `routingKey` (durable bindings outlive the connection; the queue must exist). */
  async bindQueue(queue: string, exchange: string, routingKey: string): Promise<void> {
    await this.channel().bindQueue(queue, exchange, routingKey);
  }

  async unbindQueue(queue: string, exchange: string, routingKey: string): Promise<void> {
    await this.channel().unbindQueue(queue, exchange, routingKey);
  }

  /** Fire-and-forget send for replies: transient, no confirm wait. */
  sendTransient(queue: string, body: Buffer, options: Options.Publish = {}): void {
    this.channel().sendToQueue(queue, body, { contentType: 'application/json', ...options });
  }

  /**
   * A confirm channel of its own on the broker's connection, for work that must not disturb
   * publishing: messages it takes and does not ack go back to their queue when it closes, and
   * a passive declare of a missing queue closes only it. The caller closes it.
   */
  async openChannel(): Promise<ConfirmChannel> {
    if (!this.connection) throw new DependencyUnavailableError('broker', 'broker is not connected');
    const channel = await this.connection.createConfirmChannel();
    // Without a listener, the broker closing the channel (a missing queue) would be an uncaught 'error'.
    channel.on('error', (error: Error) => this.options.logger.debug({ err: error }, 'amqp side channel closed by the broker'));
    return channel;
  }

  /**
   * A queue's ready messages and consumers, by a passive declare on a channel of its own: a
   * failed check (no such queue) closes its channel, which must not be the publish channel.
   */
  async inspectQueue(queue: string): Promise<{ messageCount: number; consumerCount: number }> {
    if (!this.connection) throw new DependencyUnavailableError('broker', 'broker is not connected');
    const channel = await this.connection.createChannel();
    channel.on('error', () => undefined);
    try {
      const { messageCount, consumerCount } = await channel.checkQueue(queue);
      return { messageCount, consumerCount };
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  async check(): Promise<void> {
    if (!this.isConnected) throw new DependencyUnavailableError('broker', 'broker is not connected');
  }

  async close(): Promise<void> {
    this.closed = true;
    const connection = this.connection;
    this.connection = null;
    this.publishChannel = null;
    if (connection) await connection.close().catch(() => undefined);
  }
}
