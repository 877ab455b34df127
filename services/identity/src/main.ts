import {
  Broker,
  checkDb,
  closeServer,
  commonConfigShape,
  createDb,
  createLogger,
  createMetrics,
  createServiceApp,
  declareIdentityEvents,
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
import { organizationsRouter } from './features/organizations/organizations-router';
import { OrganizationsService } from './features/organizations/organizations-service';
import { createInviteMailer } from './features/team/invite-mailer';
import { tenantsRouter } from './features/tenants/tenants-router';
import { TenantsService } from './features/tenants/tenants-service';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

const SERVICE = 'identity';

/** An unset and an empty variable both mean "not configured". */
const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

const identityConfigShape = {
  ...commonConfigShape,
  IDENTITY_PORT: z.coerce.number().int().min(0).max(65535).default(8091),
  /** e.g. smtp://127.0.0.1:2525; without it organizations are created but invites are not emailed. */
  SMTP_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^smtps?$/ }).optional()),
  SMTP_FROM: z.string().min(3).default('no-reply@wallet.local'),
  /** Where invite links point: the tenant dashboard's accept-invite page. */
  DASHBOARD_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^https?$/ }).default('http://localhost:3000')),
};

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  startTelemetry(SERVICE);
  const config = loadConfig(identityConfigShape, env);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const databaseUrl = serviceDatabaseUrl(SERVICE, env);
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { applicationName: SERVICE });
  await migrate(db, migrations);

  const metrics = createMetrics(SERVICE);
  const broker = new Broker({ url: config.AMQP_URL, name: SERVICE, logger, topology: declareIdentityEvents });
  await broker.start();
  const relay = new OutboxRelay({ db, broker, logger });
  relay.start();

  const mailer = config.SMTP_URL ? createInviteMailer({ smtpUrl: config.SMTP_URL, from: config.SMTP_FROM }) : null;
  if (!mailer) logger.info('SMTP_URL is not set: organization invites will not be emailed');
  const tenants = new TenantsService({ db, relay });
  const organizations = new OrganizationsService({ db, tenants, mailer, dashboardUrl: config.DASHBOARD_URL, logger });

  const app = createServiceApp({
    service: SERVICE,
    logger,
    metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    readiness: [
      { name: 'database', check: () => checkDb(db) },
      { name: 'broker', check: () => broker.check() },
    ],
    routes: (instance) => {
      instance.use(tenantsRouter(tenants));
      instance.use(organizationsRouter(organizations));
    },
  });
  const server = await listen(app, config.IDENTITY_PORT, config.HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.IDENTITY_PORT;
  logger.info({ port }, 'identity listening');

  return {
    port,
    async close() {
      await closeServer(server);
      // The relay stops before the broker so its last pass can still publish.
      await relay.stop();
      await broker.close();
      mailer?.close();
      await db.destroy();
    },
  };
}

if (require.main === module) runMain(() => start());
