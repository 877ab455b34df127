import { Counter, Gauge, type Registry } from 'prom-client';
import { z } from 'zod';
import { Broker, brokerAddresses, type BrokerOptions, type ConsumerSpec } from './amqp';
import type { Db } from './db';
import { IDEMPOTENCY_TABLE } from './idempotency/table';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { alongOutboxIndexes, OUTBOX_TABLE } from './outbox';

/*
 * What an operator watches a service by, computed when /metrics is scraped (prom-client's
 * `collect`): nothing runs while nobody scrapes. Each read is an indexed query or one broker
 * call per queue, each held to a deadline, so a dependency that is down cannot hold /metrics: a
 * labelled series it could not read is left out of that scrape, an unlabelled gauge keeps its
 * last value (0 would read as "empty").
 */

export const operationalMetricsConfigShape = {
  /** The RabbitMQ management API (`http://user:password@host:15672`): unacknowledged and redelivered counts; without it, passive declares. */
  RABBITMQ_MANAGEMENT_URL: z.preprocess((value) => (value === '' ? undefined : value), z.url({ protocol: /^https?$/ }).optional()),
};

/** How long a scrape waits for one read (a queue, a query) before leaving its samples out. */
export const OPERATIONAL_READ_TIMEOUT_MS = 2_000;

/** `promise`, or a rejection once `ms` have passed; the work itself is not stopped. */
export function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * One read shared by the gauges of one scrape: prom-client starts every collect of a scrape at
 * once, so a read still running is answered again, and the next scrape reads anew.
 */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () => {
    if (!running) {
      const started = read();
      running = started;
      void started.finally(() => {
        if (running === started) running = null;
      });
    }
    return running;
  };
}

// ---- queues ----

/** A queue a service consumes or owns, as its definition lists them. */
export interface ReportedQueue {
  name: string;
  deadLetter: boolean;
}

/** A queue and the dead-letter queue it parks failures in. */
export function queueAndDeadLetters(queue: string, deadLetterQueue: string): ReportedQueue[] {
  return [
    { name: queue, deadLetter: false },
    { name: deadLetterQueue, deadLetter: true },
  ];
}

interface QueueReading {
  ready: number;
  consumers: number;
  /** Only the management API knows these. */
  unacknowledged?: number;
  redelivered?: number;
}

const managementQueueSchema = z.object({
  messages_ready: z.number().optional(),
  messages_unacknowledged: z.number().optional(),
  consumers: z.number().optional(),
  message_stats: z.object({ redeliver: z.number().optional() }).optional(),
});

/** `http://user:password@host:15672`: fetch takes no credentials in a URL, so they travel as a header. */
function managementEndpoint(managementUrl: string): { base: string; authorization: string | null } {
  const url = new URL(managementUrl);
  const authorization = url.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : null;
  url.username = '';
  url.password = '';
  return { base: url.toString().replace(/\/+$/, ''), authorization };
}

/** The vhost an AMQP URL names (the first node's, of a cluster's list): its path, `/` when it has none. */
export function vhostOf(amqpUrl: string): string {
  const path = new URL(brokerAddresses(amqpUrl)[0] ?? amqpUrl).pathname;
  return path === '' || path === '/' ? '/' : decodeURIComponent(path.slice(1));
}

async function readFromManagement(managementUrl: string, vhost: string, queue: string): Promise<QueueReading> {
  const { base, authorization } = managementEndpoint(managementUrl);
  const response = await fetch(`${base}/api/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}`, {
    headers: authorization ? { authorization } : {},
    signal: AbortSignal.timeout(OPERATIONAL_READ_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`management API answered ${response.status} for queue ${queue}`);
  const body = managementQueueSchema.parse(await response.json());
  return {
    ready: body.messages_ready ?? 0,
    consumers: body.consumers ?? 0,
    unacknowledged: body.messages_unacknowledged ?? 0,
    redelivered: body.message_stats?.redeliver ?? 0,
  };
}

export interface QueueGaugeOptions {
  registry: Registry;
  broker: Pick<Broker, 'inspectQueue'>;
  queues: readonly ReportedQueue[];
  amqpUrl: string;
  /** The management API's base URL; without it (or when it fails) a passive declare tells ready messages and consumers. */
  managementUrl?: string;
  logger: Logger;
}

/** rabbitmq_queue_* gauges of the listed queues, read from the broker at each scrape. */
export function registerQueueGauges(options: QueueGaugeOptions): void {
  const vhost = vhostOf(options.amqpUrl);
  const readQueue = async (queue: string): Promise<QueueReading> => {
    if (options.managementUrl) {
      try {
        return await readFromManagement(options.managementUrl, vhost, queue);
      } catch (error) {
        options.logger.debug({ err: error, queue }, 'management API read failed; passive declare instead');
      }
    }
    return withinMs(options.broker.inspectQueue(queue), OPERATIONAL_READ_TIMEOUT_MS).then(({ messageCount, consumerCount }) => ({
      ready: messageCount,
      consumers: consumerCount,
    }));
  };
  const readAll = sharedRead(() =>
    Promise.all(
      options.queues.map(async (queue) => ({
        queue,
        reading: await readQueue(queue.name).catch((error: unknown) => {
          options.logger.debug({ err: error, queue: queue.name }, 'queue left out of this scrape');
          return null;
        }),
      })),
    ),
  );
  const queueGauge = (
    name: string,
    help: string,
    value: (reading: QueueReading) => number | undefined,
    labels: 'queue' | 'queue_and_dead_letter' = 'queue_and_dead_letter',
  ) =>
    new Gauge({
      name,
      help,
      labelNames: labels === 'queue' ? ['queue'] : ['queue', 'dead_letter'],
      registers: [options.registry],
      async collect() {
        const readings = await readAll();
        // A queue that could not be read is absent from this scrape, not reported as it last was.
        this.reset();
        for (const { queue, reading } of readings) {
          const found = reading ? value(reading) : undefined;
          if (found === undefined) continue;
          this.set(labels === 'queue' ? { queue: queue.name } : { queue: queue.name, dead_letter: String(queue.deadLetter) }, found);
        }
      },
    });
  queueGauge(
    'rabbitmq_queue_messages_ready',
    'Messages ready for delivery in a queue this service consumes or owns',
    (reading) => reading.ready,
  );
  queueGauge(
    'rabbitmq_queue_messages_unacknowledged',
    'Messages delivered and not yet acknowledged (management API only)',
    (reading) => reading.unacknowledged,
  );
  queueGauge('rabbitmq_queue_consumers', 'Consumers of the queue, every instance of every service', (reading) => reading.consumers);
  queueGauge(
    'rabbitmq_queue_messages_redelivered_total',
    "Redeliveries the broker counted on the queue (management API's message_stats.redeliver)",
    (reading) => reading.redelivered,
    'queue',
  );
}

/**
 * A Broker whose consumers count the deliveries they receive flagged as redelivered (an
 * earlier delivery was not acknowledged: a crash, a lost connection, a requeue).
 */
export class MeteredBroker extends Broker {
  private readonly redelivered: Counter<'queue'>;

  constructor(options: BrokerOptions, metrics: ServiceMetrics) {
    super(options);
    this.redelivered = new Counter({
      name: 'amqp_messages_redelivered_total',
      help: "Deliveries this instance's consumers received flagged as redelivered",
      labelNames: ['queue'],
      registers: [metrics.registry],
    });
  }

  override consume(spec: ConsumerSpec): Promise<void> {
    this.redelivered.inc({ queue: spec.queue }, 0);
    return super.consume({
      ...spec,
      onMessage: (message, channel, channelClosed) => {
        if (message.fields.redelivered) this.redelivered.inc({ queue: spec.queue });
        return spec.onMessage(message, channel, channelClosed);
      },
    });
  }
}

// ---- the outbox and idempotency keys ----

/** Beyond this many rows the outbox's size is estimated from its id range: counting them all would read the whole backlog at every scrape. */
export const OUTBOX_COUNT_MAX = 10_000;

interface OutboxReading {
  messages: number;
  oldestAgeSeconds: number;
}

async function readOutbox(db: Db): Promise<OutboxReading> {
  const result = await alongOutboxIndexes(db, (tx) =>
    tx.raw<{ rows: Array<{ counted: number; first_id: string | null; last_id: string | null; oldest_age: number | null }> }>(
      `SELECT (SELECT CAST(count(*) AS integer) FROM (SELECT 1 FROM ${OUTBOX_TABLE} LIMIT ?) capped) AS counted,
              (SELECT min(id) FROM ${OUTBOX_TABLE}) AS first_id, (SELECT max(id) FROM ${OUTBOX_TABLE}) AS last_id,
              (SELECT CAST(EXTRACT(EPOCH FROM now() - created_at) AS double precision) FROM ${OUTBOX_TABLE} ORDER BY id LIMIT 1) AS oldest_age`,
      [OUTBOX_COUNT_MAX + 1],
    ),
  );
  const row = result.rows[0];
  if (!row) throw new Error('the outbox query returned no row');
  // Rows published out of order leave gaps in the id range: past the cap this is an upper bound.
  const messages =
    row.counted <= OUTBOX_COUNT_MAX || row.first_id === null || row.last_id === null
      ? row.counted
      : Number(BigInt(row.last_id) - BigInt(row.first_id) + 1n);
  return { messages, oldestAgeSeconds: Math.max(0, row.oldest_age ?? 0) };
}

/** The outboxes of a service's databases (its shards) as one: messages summed, the oldest of them. */
async function readOutboxes(dbs: readonly Db[]): Promise<OutboxReading> {
  const readings = await Promise.all(dbs.map(readOutbox));
  return {
    messages: readings.reduce((sum, reading) => sum + reading.messages, 0),
    oldestAgeSeconds: Math.max(0, ...readings.map((reading) => reading.oldestAgeSeconds)),
  };
}

/** outbox_messages and outbox_oldest_message_age_seconds, read from the service's outboxes (one per database) at each scrape. */
export function registerOutboxGauges(registry: Registry, dbs: readonly Db[], logger: Logger): void {
  const read = sharedRead(() =>
    withinMs(readOutboxes(dbs), OPERATIONAL_READ_TIMEOUT_MS).catch((error: unknown) => {
      logger.debug({ err: error }, 'outbox left out of this scrape');
      return null;
    }),
  );
  const outboxGauge = (name: string, help: string, value: (reading: OutboxReading) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const reading = await read();
        // A failed read leaves the value as it was (reset would report 0, which means "empty").
        if (reading) this.set(value(reading));
      },
    });
  outboxGauge(
    'outbox_messages',
    `Messages committed and not yet confirmed by the broker (exact up to ${OUTBOX_COUNT_MAX}, an upper bound beyond)`,
    (reading) => reading.messages,
  );
  outboxGauge(
    'outbox_oldest_message_age_seconds',
    'Age of the oldest message waiting in the outbox (0 when empty)',
    (reading) => reading.oldestAgeSeconds,
  );
}

/**
 * An unlabelled gauge read at each scrape by one statement answering one row with a `value`
 * column (a number, or its text for a bigint); a read that fails or runs out of time keeps the
 * last value (0 would read as "none").
 */
export function registerQueryGauge(registry: Registry, db: Db, logger: Logger, gauge: { name: string; help: string; sql: string }): void {
  new Gauge({
    name: gauge.name,
    help: gauge.help,
    registers: [registry],
    async collect() {
      const read = await withinMs(db.raw<{ rows: Array<{ value: number | string }> }>(gauge.sql), OPERATIONAL_READ_TIMEOUT_MS).catch(
        (error: unknown) => {
          logger.debug({ err: error }, `${gauge.name} left out of this scrape`);
          return null;
        },
      );
      if (read) this.set(Number(read.rows[0]?.value ?? 0));
    },
  });
}

/** idempotency_keys_in_flight: keys claimed whose answer is not yet stored, counted on the index of that name (createIdempotencyInFlightIndex). */
export function registerIdempotencyGauge(registry: Registry, db: Db, logger: Logger): void {
  registerQueryGauge(registry, db, logger, {
    name: 'idempotency_keys_in_flight',
    help: 'Idempotency keys claimed whose answer is not yet stored (held, or left by a holder that crashed)',
    sql: `SELECT CAST(count(*) AS integer) AS value FROM ${IDEMPOTENCY_TABLE} WHERE status = 'in_progress'`,
  });
}
