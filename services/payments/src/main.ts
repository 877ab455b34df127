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
import { z } from 'zod';
import { migrations } from '../migrations';
import { declarePaymentsTopology } from './topology';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

const SERVICE = 'payments';

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  startTelemetry(SERVICE);
  const config = loadConfig({ ...commonConfigShape, PAYMENTS_PORT: z.coerce.number().int().min(0).max(65535).default(8093) }, env);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const databaseUrl = serviceDatabaseUrl(SERVICE, env);
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { applicationName: SERVICE });
  await migrate(db, migrations);

  const metrics = createMetrics(SERVICE);
  const broker = new Broker({ url: config.AMQP_URL, name: SERVICE, logger, topology: declarePaymentsTopology });
  await broker.start();
  const relay = new OutboxRelay({ db, broker, logger });
  relay.start();

  const app = createServiceApp({
    service: SERVICE,
    logger,
    metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    readiness: [
      { name: 'database', check: () => checkDb(db) },
      { name: 'broker', check: () => broker.check() },
    ],
    // Wallets, deposits, transfers, payouts and fees mount here as they arrive.
    routes: () => undefined,
  });
  const server = await listen(app, config.PAYMENTS_PORT, config.HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PAYMENTS_PORT;
  logger.info({ port }, 'payments listening');

  return {
    port,
    async close() {
      await closeServer(server);
      await relay.stop();
      await broker.close();
      await db.destroy();
    },
  };
}

if (require.main === module) runMain(() => start());
