import { csvExportRoutes } from './features/exports/csv-exports';
import { buildOpenApiDocument, type RouteContract, ROUTES } from '@wallet/contracts';
import {
  BackgroundPace,
  Broker,
  checkDb,
  type Db,
  type Logger,
  type ServiceMetrics,
  closeServer,
  createDb,
  createLogger,
  createMetrics,
  ensureDatabase,
  listen,
  migrate,
  RetentionMetrics,
  runMain,
  serviceDatabaseUrl,
  startRetention,
  startTableMaintenance,
  useCursorSecret,
} from '@wallet/kit';
import type { Server } from 'node:http';
import type express from 'express';
import path from 'node:path';
import { migrations } from '../migrations';
import { version } from '../package.json';
import { type GatewayConfig, loadGatewayConfig, rateLimitPolicies } from './config';
import { apiKeyChangesQueueName, apiKeyChangesTopology, consumeApiKeyChanges } from './features/auth/api-key-events';
import { type AuthService, createAuthService } from './features/auth/auth-service';
import { systemKeyAuthenticator, tenantAuthenticators } from './features/auth/authenticators';
import { createIdentityKeysClient, type IdentityKeysClient } from './features/auth/identity-keys-client';
import { changedKeyId } from './features/auth/key-changes';
import { sessionResolver } from './features/auth/session-credentials';
import { KeyCache } from './features/auth/key-cache';
import { type KeyCredentialOptions, NONCE_RETENTION_MS, secretKeyResolver, signedRequestResolver } from './features/auth/key-credentials';
import { createNonceStore, nonceRetentionRule } from './features/auth/nonce-store';
import type { Authenticator } from './features/auth/principal';
import type { ProxyDependencies } from './features/proxy/proxy-router';
import { createUpstreamClient, type UpstreamService } from './features/proxy/upstream-client';
import { createBucketStore } from './features/rate-limits/bucket-store';
import { startBucketPurge } from './features/rate-limits/bucket-purge';
import { createRateLimiter } from './features/rate-limits/rate-limiter';
import { requestLogRetentionRule } from './features/request-logs/request-log-retention';
import { requestLogInternalRouter } from './features/request-logs/request-log-internal-router';
import { requestLogRoutes } from './features/request-logs/request-log-routes';
import { createRequestLogStore, type RequestLogStore } from './features/request-logs/request-log-store';
import { createRequestLogWriter, type RequestLogWriter } from './features/request-logs/request-log-writer';
import { compileRouteTable, isAdminPath } from './features/routing/route-table';
import { createAdminApp, createDashboardApp, createPublicApp, SERVICE } from './gateway-app';
import { csrfTokens } from './features/dashboard/dashboard-csrf';
import { isDashboardRoute } from './features/dashboard/dashboard-session';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

export interface RunningGateway extends RunningService {
  /** The admin listener's real port (the system surface only). */
  adminPort: number;
  /** The dashboard listener's real port. */
  dashboardPort: number;
}

export interface GatewayOptions {
  /** Replaces the tenant credential chain (tests that need a principal without a key store). */
  tenantAuthenticators?: Authenticator[];
  /** The clock signed requests are checked against, in ms since the epoch; tests move it instead of sleeping. */
  nowMs?: () => number;
  /** Replaces the contracts' routes (tests of a surface no contract route uses yet). */
  routes?: readonly RouteContract[];
}

const UPSTREAMS: readonly UpstreamService[] = ['identity', 'ledger', 'payments', 'treasury'];

function portOf(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}

type Closers = Array<() => Promise<void>>;

/** What every part of the gateway is started with; each part adds how to stop it to `closers`. */
interface GatewayParts {
  config: GatewayConfig;
  logger: Logger;
  metrics: ServiceMetrics;
  db: Db;
  closers: Closers;
}

/** API keys as identity keeps them: its client, the cache in front of it, and the broker that tells the cache what changed. */
async function startKeys({
  config,
  logger,
  closers,
}: GatewayParts): Promise<{ identity: IdentityKeysClient; keys: KeyCache; broker: Broker }> {
  const identity = createIdentityKeysClient({
    identityUrl: config.IDENTITY_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
    logger,
  });
  const keys = new KeyCache(identity, config.GATEWAY_KEY_CACHE_TTL_MS);
  const queue = apiKeyChangesQueueName();
  const broker = new Broker({ url: config.AMQP_URL, name: SERVICE, logger, topology: apiKeyChangesTopology(queue, keys) });
  closers.push(() => broker.close());
  await broker.start();
  await consumeApiKeyChanges(broker, queue, keys, logger);
  return { identity, keys, broker };
}

/** Request logs: written in batches off the request path, read through the tenant's routes. */
function startRequestLogs({ config, logger, metrics, db, closers }: GatewayParts): { store: RequestLogStore; writer: RequestLogWriter } {
  const store = createRequestLogStore(db, { examineMax: config.GATEWAY_REQUEST_LOG_EXAMINE_MAX });
  const writer = createRequestLogWriter({ store, logger, metrics, flushIntervalMs: config.GATEWAY_REQUEST_LOG_FLUSH_INTERVAL_MS });
  // Closers run last to first: the listeners close before this, so the final flush holds every request's record.
  closers.push(() => writer.close());
  return { store, writer };
}

/** Purges of expired nonces and of request logs past their window. */
function startGatewayRetention({ config, logger, metrics, db, closers }: GatewayParts, nowMs: () => number): void {
  // Nonces expire on the clock signed requests are checked against (tests move it); request logs carry the real time.
  const retentionSettings = {
    db,
    logger,
    firstPassDelayMs: config.RETENTION_FIRST_PASS_DELAY_MS,
    pace: BackgroundPace.fromConfig(config),
    metrics: new RetentionMetrics(metrics.registry),
  };
  const nonceRetention = startRetention({
    ...retentionSettings,
    nowMs,
    rules: [nonceRetentionRule(config.GATEWAY_NONCE_PURGE_INTERVAL_MS, NONCE_RETENTION_MS)],
  });
  closers.push(() => nonceRetention.stop());
  const logRetention = startRetention({
    ...retentionSettings,
    rules: [requestLogRetentionRule(config.GATEWAY_REQUEST_LOG_RETENTION_DAYS, config.GATEWAY_REQUEST_LOG_PURGE_INTERVAL_MS)],
  });
  closers.push(() => logRetention.stop());
}

/** The system key, and the tenant's credentials: signed requests, secret keys and dashboard sessions (unless a test replaces them). */
function gatewayAuth(
  config: GatewayConfig,
  options: GatewayOptions,
  credentials: KeyCredentialOptions,
  identity: IdentityKeysClient,
): AuthService {
  return createAuthService({
    system: [systemKeyAuthenticator(config.SYSTEM_API_KEY)],
    tenant:
      options.tenantAuthenticators ??
      tenantAuthenticators({
        signedRequest: signedRequestResolver(credentials),
        secretKey: secretKeyResolver(credentials),
        session: sessionResolver(identity),
      }),
  });
}

/** The three listeners' apps, each proxying the routes its surface serves. */
function gatewayApps(
  { config, logger, metrics, db }: GatewayParts,
  proxyBase: Omit<ProxyDependencies, 'table'>,
  other: { routes: readonly RouteContract[]; broker: Broker; identity: IdentityKeysClient; requestLogStore: RequestLogStore },
): { publicApp: express.Express; adminApp: express.Express; dashboardApp: express.Express } {
  const { routes, broker, identity, requestLogStore } = other;
  const publicApp = createPublicApp({
    logger,
    metrics,
    proxy: { ...proxyBase, table: compileRouteTable(routes) },
    readiness: [
      { name: 'database', check: () => checkDb(db) },
      { name: 'broker', check: () => broker.check() },
      ...UPSTREAMS.map((service) => ({ name: service, check: () => proxyBase.upstream.checkHealth(service) })),
    ],
    openApiDocument: buildOpenApiDocument({ version }),
  });
  const adminApp = createAdminApp({
    logger,
    metrics,
    proxy: { ...proxyBase, table: compileRouteTable(routes.filter((route) => isAdminPath(route.path))) },
    internal: requestLogInternalRouter(requestLogStore, config.INTERNAL_TOKEN_SECRET),
  });
  const dashboardApp = createDashboardApp({
    logger,
    metrics,
    proxy: { ...proxyBase, table: compileRouteTable(routes.filter(isDashboardRoute)) },
    identity,
    cookies: { secure: config.DASHBOARD_SECURE_COOKIES, csrf: csrfTokens(config.INTERNAL_TOKEN_SECRET) },
    distDir: path.resolve(config.DASHBOARD_DIST),
  });
  return { publicApp, adminApp, dashboardApp };
}

/** The public, admin and dashboard listeners, on their configured ports (0: any free one); their real ports. */
async function listenAll(
  { config, logger, closers }: GatewayParts,
  apps: ReturnType<typeof gatewayApps>,
): Promise<{ port: number; adminPort: number; dashboardPort: number }> {
  const publicServer = await listen(apps.publicApp, config.GATEWAY_PORT, config.HOST);
  closers.push(() => closeServer(publicServer));
  const adminServer = await listen(apps.adminApp, config.ADMIN_PORT, config.ADMIN_HOST ?? config.HOST);
  closers.push(() => closeServer(adminServer));
  const dashboardServer = await listen(apps.dashboardApp, config.DASHBOARD_PORT, config.DASHBOARD_HOST ?? config.HOST);
  closers.push(() => closeServer(dashboardServer));
  const port = portOf(publicServer, config.GATEWAY_PORT);
  const adminPort = portOf(adminServer, config.ADMIN_PORT);
  const dashboardPort = portOf(dashboardServer, config.DASHBOARD_PORT);
  logger.info({ port, adminPort, dashboardPort }, 'gateway listening');
  return { port, adminPort, dashboardPort };
}

export async function start(env: NodeJS.ProcessEnv = process.env, options: GatewayOptions = {}): Promise<RunningGateway> {
  const config = loadGatewayConfig(env);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const metrics = createMetrics(SERVICE);

  useCursorSecret(config.INTERNAL_TOKEN_SECRET);
  // Nonces, rate-limit buckets and request logs: what every instance must share with every other.
  const databaseUrl = serviceDatabaseUrl(SERVICE, env);
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { applicationName: SERVICE, poolMax: 10, logger });
  const closers: Closers = [() => db.destroy()];
  const closeAll = async () => {
    for (const close of [...closers].reverse())
      await close().catch((error: unknown) => logger.warn({ err: error }, 'gateway shutdown step failed'));
  };
  const parts: GatewayParts = { config, logger, metrics, db, closers };

  try {
    await migrate(db, migrations);
    if (config.TABLE_MAINTENANCE_INTERVAL_MS > 0) {
      const maintenance = await startTableMaintenance({ db, logger, intervalMs: config.TABLE_MAINTENANCE_INTERVAL_MS });
      closers.push(() => maintenance.stop());
    }
    const nonces = createNonceStore(db);
    const { identity, keys, broker } = await startKeys(parts);
    const nowMs = options.nowMs ?? Date.now;

    const rateLimiter = createRateLimiter(createBucketStore(db), rateLimitPolicies(config), { logger, metrics });
    const bucketPurge = startBucketPurge(rateLimiter, { intervalMs: config.GATEWAY_RATE_LIMIT_PURGE_INTERVAL_MS, logger });
    closers.push(() => bucketPurge.stop());
    const requestLogs = startRequestLogs(parts);
    startGatewayRetention(parts, nowMs);

    const upstream = createUpstreamClient({
      urls: { identity: config.IDENTITY_URL, ledger: config.LEDGER_URL, payments: config.PAYMENTS_URL, treasury: config.TREASURY_URL },
      timeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
      logger,
      metrics,
    });
    closers.push(() => upstream.close());
    const proxyBase = {
      auth: gatewayAuth(config, options, { keys, nonces, nowMs }, identity),
      upstream,
      internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
      rateLimiter,
      requestLogs: requestLogs.writer,
      localRoutes: new Map([...requestLogRoutes(requestLogs.store), ...csvExportRoutes()]),
      onUpstreamAnswer: (route: RouteContract, path: string, status: number) => {
        const keyId = changedKeyId(route, path, status);
        if (keyId) keys.invalidate(keyId);
      },
    };
    const routes = options.routes ?? ROUTES;
    const apps = gatewayApps(parts, proxyBase, { routes, broker, identity, requestLogStore: requestLogs.store });
    return { ...(await listenAll(parts, apps)), close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

if (require.main === module) runMain(() => start());
