import { TOPOLOGY } from '@wallet/contracts';
import {
  Broker,
  checkDb,
  closeServer,
  commonConfigShape,
  createDb,
  createLogger,
  createMetrics,
  createServiceApp,
  ensureDatabase,
  listen,
  loadConfig,
  migrate,
  OutboxRelay,
  runMain,
  serviceDatabaseUrl,
  startTelemetry,
} from '@wallet/kit';
import { Gauge } from 'prom-client';
import { z } from 'zod';
import { migrations } from '../migrations';
import { ledgerReadRouter } from './features/journal/journal-router';
import { PostingConsumer } from './features/posting/posting-consumer';
import { startProvisioningConsumer } from './features/provisioning/provisioning-consumer';
import { declareLedgerTopology } from './topology';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

const SERVICE = 'ledger';

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  startTelemetry(SERVICE);
  const config = loadConfig(
    {
      ...commonConfigShape,
      LEDGER_PORT: z.coerce.number().int().min(0).max(65535).default(8092),
      LEDGER_BATCH_SIZE_MAX: z.coerce.number().int().min(1).max(2000).default(500),
      LEDGER_PIPELINE_DEPTH: z.coerce.number().int().min(1).max(8).default(2),
      LEDGER_DB_POOL_MAX: z.coerce.number().int().min(2).max(100).default(10),
    },
    env,
  );
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const databaseUrl = serviceDatabaseUrl(SERVICE, env);
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { poolMax: config.LEDGER_DB_POOL_MAX, applicationName: SERVICE });
  await migrate(db, migrations);

  const metrics = createMetrics(SERVICE);
  const broker = new Broker({ url: config.AMQP_URL, name: SERVICE, logger, topology: declareLedgerTopology });
  await broker.start();
  const relay = new OutboxRelay({ db, broker, logger });
  relay.start();
  new Gauge({
    name: 'ledger_dead_letter_queue_depth',
    help: 'Commands parked in the dead-letter queue',
    registers: [metrics.registry],
    async collect() {
      this.set(await broker.queueDepth(TOPOLOGY.ledgerCommands.deadLetterQueue).catch(() => -1));
    },
  });

  const consumer = new PostingConsumer({ broker, db, logger, metrics, relay, batchSizeMax: config.LEDGER_BATCH_SIZE_MAX, pipelineDepth: config.LEDGER_PIPELINE_DEPTH });
  await consumer.start();
  await startProvisioningConsumer({ broker, db, logger });

  const app = createServiceApp({
    service: SERVICE,
    logger,
    metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    readiness: [
      { name: 'database', check: () => checkDb(db) },
      { name: 'broker', check: () => broker.check() },
    ],
    routes: (instance) => instance.use(ledgerReadRouter(db)),
  });
  const server = await listen(app, config.LEDGER_PORT, config.HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.LEDGER_PORT;
  logger.info({ port }, 'ledger listening');

  return {
    port,
    async close() {
      await closeServer(server);
      await broker.close();
      await consumer.idle();
      await relay.stop();
      await db.destroy();
    },
  };
}

if (require.main === module) runMain(() => start());
