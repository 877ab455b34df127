import type { Server } from 'node:http';
import type express from 'express';
import { z } from 'zod';
import { BackgroundPace } from './background-pace';
import { Broker, type Channel } from './amqp';
import { commonConfigShape, loadConfig, serviceDatabaseUrl } from './config';
import { useCursorSecret, useListExamineMax } from './cursor';
import { checkDb, createDb, type Db, ensureDatabase, migrate, type Migration } from './db';
import { type BodyOptInRoute, closeServer, createServiceApp, listen } from './http';
import { createLogger, type Logger } from './logger';
import { createMetrics, type ServiceMetrics } from './metrics';
import {
  MeteredBroker,
  operationalMetricsConfigShape,
  registerIdempotencyGauge,
  registerOutboxGauges,
  registerQueueGauges,
  type ReportedQueue,
} from './operational-metrics';
import { OutboxRelay, type PrepareOutgoingBatch } from './outbox';
import { useIdempotencyTtlHours } from './idempotency';
import { retentionConfigShape, RetentionMetrics, type RetentionRule, startRetention } from './retention';
import { startTableMaintenance } from './table-maintenance';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

/** One database of the service with the relay that publishes its outbox. */
export interface ShardParts {
  db: Db;
  relay: OutboxRelay;
}

export interface ServiceParts<Config> {
  config: Config;
  logger: Logger;
  db: Db;
  broker: Broker;
  relay: OutboxRelay;
  /** Every database of the service, its own (`db`, `relay`) first, then those of `shardUrls`. */
  shards: readonly ShardParts[];
  metrics: ServiceMetrics;
}

export type CommonConfig = z.infer<z.ZodObject<typeof commonConfigShape>> &
  z.infer<z.ZodObject<typeof retentionConfigShape>> &
  z.infer<z.ZodObject<typeof operationalMetricsConfigShape>>;
export type ServiceConfig<Shape extends z.ZodRawShape> = CommonConfig & z.infer<z.ZodObject<Shape>>;

export interface ServiceDefinition<Shape extends z.ZodRawShape> {
  name: string;
  port: { variable: string; defaultPort: number };
  /** Variables this service reads besides the common ones. */
  config: Shape;
  migrations: Migration[];
  topology: (channel: Channel, config: ServiceConfig<Shape>) => Promise<void>;
  /** The queues it consumes or owns, their dead-letter queues included: their depth and consumers are on its /metrics. */
  queues?: readonly ReportedQueue[] | ((config: ServiceConfig<Shape>) => readonly ReportedQueue[]);
  /** It keeps idempotency keys: how many are in flight is on its /metrics. */
  idempotencyKeys?: boolean;
  dbPoolMax?: (config: ServiceConfig<Shape>) => number;
  /** Its database sessions' idle-in-transaction limit (DbOptions); none by default. */
  dbIdleInTransactionTimeoutMs?: (config: ServiceConfig<Shape>) => number;
  /** The AMQP heartbeat it asks for (BrokerOptions); the server's by default. */
  amqpHeartbeatSeconds?: (config: ServiceConfig<Shape>) => number;
  /** What the outbox relay makes of each batch before publishing it (OutboxRelay's prepareBatch). */
  prepareOutgoingBatch?: PrepareOutgoingBatch;
  /**
   * What the service deletes once it is old enough: every table that is not a business record
   * and not the books (docs/retention.md). Run every RETENTION_INTERVAL_MS in batches of
   * RETENTION_BATCH_SIZE.
   */
  retention?: (config: ServiceConfig<Shape>) => RetentionRule[];
  /**
   * Databases of the same schema beside its own, for a service that spreads its data over
   * several (the ledger's shards): each is created, migrated, kept by retention and table
   * maintenance, checked by /readyz, and has its outbox relayed, as its own database is.
   */
  shardUrls?: (config: ServiceConfig<Shape>) => readonly string[];
  /** Builds the features on the shared parts: their routes, and how to stop them (before the relay and broker). */
  wire: (parts: ServiceParts<ServiceConfig<Shape>>) => Promise<Features>;
}

/** What a service's features hand back: their routes, and how to stop what they run. */
export interface Features {
  routes: (app: express.Express) => void;
  stop?: () => Promise<void>;
  /** Routes that take a non-JSON body (text/csv) or a body over 1 MiB. */
  bodyOptIns?: readonly BodyOptInRoute[];
}

/** A start's undo list: what has been started so far, stopped in reverse when a later step fails. */
type StartedParts = Array<() => Promise<void>>;

/** The service's configuration (common variables and its own) and the port its HTTP app listens on. */
function loadServiceConfig<Shape extends z.ZodRawShape>(
  definition: ServiceDefinition<Shape>,
  env: NodeJS.ProcessEnv,
): { config: ServiceConfig<Shape>; listenPort: number } {
  const config: ServiceConfig<Shape> = {
    ...loadConfig(commonConfigShape, env),
    ...loadConfig(retentionConfigShape, env),
    ...loadConfig(operationalMetricsConfigShape, env),
    ...loadConfig(definition.config, env),
  };
  const listenPort = loadConfig(
    { [definition.port.variable]: z.coerce.number().int().min(0).max(65535).default(definition.port.defaultPort) },
    env,
  )[definition.port.variable] as number;
  return { config, listenPort };
}

/** Table maintenance when its interval is set; how to stop it. */
async function startMaintenanceOf(db: Db, logger: Logger, config: CommonConfig, started: StartedParts): Promise<void> {
  if (config.TABLE_MAINTENANCE_INTERVAL_MS <= 0) return;
  const maintenance = await startTableMaintenance({ db, logger, intervalMs: config.TABLE_MAINTENANCE_INTERVAL_MS });
  started.push(() => maintenance.stop());
}

/** One database of the service, created when missing and migrated, with its table maintenance and retention running. */
async function openDatabase<Shape extends z.ZodRawShape>(
  url: string,
  definition: ServiceDefinition<Shape>,
  parts: { logger: Logger; config: ServiceConfig<Shape>; retentionMetrics: RetentionMetrics },
  started: StartedParts,
): Promise<Db> {
  const { logger, config } = parts;
  await ensureDatabase(url);
  const db = createDb(url, {
    applicationName: definition.name,
    poolMax: definition.dbPoolMax?.(config),
    idleInTransactionTimeoutMs: definition.dbIdleInTransactionTimeoutMs?.(config),
    logger,
  });
  started.push(() => db.destroy());
  await migrate(db, definition.migrations);
  await startMaintenanceOf(db, logger, config, started);
  startRetentionOf(definition.retention?.(config) ?? [], { db, logger, config, metrics: parts.retentionMetrics }, started);
  return db;
}

/** Retention of the service's windowed tables when it names any; how to stop it. */
function startRetentionOf(
  rules: RetentionRule[],
  parts: { db: Db; logger: Logger; config: CommonConfig; metrics: RetentionMetrics },
  started: StartedParts,
): void {
  if (rules.length === 0) return;
  const { db, logger, config, metrics } = parts;
  const retention = startRetention({
    db,
    logger,
    rules,
    intervalMs: config.RETENTION_INTERVAL_MS,
    firstPassDelayMs: config.RETENTION_FIRST_PASS_DELAY_MS,
    batchSize: config.RETENTION_BATCH_SIZE,
    pace: BackgroundPace.fromConfig(config),
    metrics,
  });
  started.push(() => retention.stop());
}

/** The broker with its topology and gauges, then the outbox relay that publishes through it. */
async function startMessaging<Shape extends z.ZodRawShape>(
  definition: ServiceDefinition<Shape>,
  parts: { dbs: readonly Db[]; logger: Logger; config: ServiceConfig<Shape>; metrics: ServiceMetrics },
  started: StartedParts,
): Promise<{ broker: Broker; shards: ShardParts[] }> {
  const { dbs, logger, config, metrics } = parts;
  const broker = new MeteredBroker(
    {
      url: config.AMQP_URL,
      name: definition.name,
      logger,
      topology: (channel) => definition.topology(channel, config),
      heartbeatSeconds: definition.amqpHeartbeatSeconds?.(config),
    },
    metrics,
  );
  const { queues = [] } = definition;
  registerQueueGauges({
    registry: metrics.registry,
    broker,
    queues: typeof queues === 'function' ? queues(config) : queues,
    amqpUrl: config.AMQP_URL,
    managementUrl: config.RABBITMQ_MANAGEMENT_URL,
    logger,
  });
  registerOutboxGauges(metrics.registry, dbs, logger);
  if (definition.idempotencyKeys && dbs[0]) registerIdempotencyGauge(metrics.registry, dbs[0], logger);
  started.push(() => broker.close());
  await broker.start();
  const shards = dbs.map((db) => {
    const relay = new OutboxRelay({ db, broker, logger, prepareBatch: definition.prepareOutgoingBatch });
    started.push(() => relay.stop());
    relay.start();
    return { db, relay };
  });
  return { broker, shards };
}

/** The HTTP app: the features' routes with /healthz, /readyz (database and broker) and /metrics. */
function serviceApp(
  name: string,
  parts: { dbs: readonly Db[]; logger: Logger; config: CommonConfig; metrics: ServiceMetrics; broker: Broker },
  features: Features,
): express.Express {
  const { dbs, logger, config, metrics, broker } = parts;
  return createServiceApp({
    service: name,
    logger,
    metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    readiness: [
      ...dbs.map((db, index) => ({ name: index === 0 ? 'database' : `database shard ${index}`, check: () => checkDb(db) })),
      { name: 'broker', check: () => broker.check() },
    ],
    routes: features.routes,
    bodyOptIns: features.bodyOptIns,
  });
}

/**
 * What every service does at start, in order: configuration, its own database
 * (created and migrated), the broker with its topology, the outbox relay, the features, and
 * the HTTP app with /healthz, /readyz and /metrics. `close()` undoes it in reverse.
 */
export async function startService<Shape extends z.ZodRawShape>(
  definition: ServiceDefinition<Shape>,
  env: NodeJS.ProcessEnv,
): Promise<RunningService> {
  const { config, listenPort } = loadServiceConfig(definition, env);
  const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL });
  useCursorSecret(config.INTERNAL_TOKEN_SECRET);
  useIdempotencyTtlHours(config.IDEMPOTENCY_KEY_TTL_HOURS);
  useListExamineMax(config.LIST_EXAMINE_MAX);
  const urls = [serviceDatabaseUrl(definition.name, env), ...(definition.shardUrls?.(config) ?? [])];
  // What has been started so far, undone in reverse when a later step fails or the service closes.
  const started: StartedParts = [];
  let server: Server;
  try {
    const metrics = createMetrics(definition.name);
    const retentionMetrics = new RetentionMetrics(metrics.registry);
    const dbs: Db[] = [];
    for (const url of urls) dbs.push(await openDatabase(url, definition, { logger, config, retentionMetrics }, started));
    const { broker, shards } = await startMessaging(definition, { dbs, logger, config, metrics }, started);
    const [own] = shards;
    if (!own) throw new Error(`${definition.name} has no database`);
    const features = await definition.wire({ config, logger, db: own.db, broker, relay: own.relay, shards, metrics });
    started.push(async () => features.stop?.());
    server = await listen(serviceApp(definition.name, { dbs, logger, config, metrics, broker }, features), listenPort, config.HOST);
  } catch (error) {
    await stopAll(started, logger, 'cleanup after a failed start failed');
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listenPort;
  logger.info({ port }, `${definition.name} listening`);

  return {
    port,
    async close() {
      await closeServer(server);
      // In reverse of the start: features finish what they hold while the broker can still take
      // their acks and replies; the relays' last passes then publish what they committed.
      await stopAll(started, logger);
    },
  };
}

/** Stops what was started, last first; with `failureNote`, a failing step is logged and the rest still stop. */
async function stopAll(started: StartedParts, logger: Logger, failureNote?: string): Promise<void> {
  for (const stop of [...started].reverse()) {
    if (failureNote === undefined) await stop();
    else await stop().catch((cleanup: unknown) => logger.warn({ err: cleanup }, failureNote));
  }
}
