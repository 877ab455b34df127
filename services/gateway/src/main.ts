import { buildOpenApiDocument, type RouteContract, ROUTES } from '@wallet/contracts';
import {
  BackgroundPace,
  Broker,
  checkDb,
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
import path from 'node:path';
import { migrations } from '../migrations';
import { version } from '../package.json';
import { loadGatewayConfig, rateLimitPolicies } from './config';
import { apiKeyChangesQueueName, apiKeyChangesTopology, consumeApiKeyChanges } from './features/auth/api-key-events';
import { createAuthService } from './features/auth/auth-service';
import { systemKeyAuthenticator, tenantAuthenticators } from './features/auth/authenticators';
import { createIdentityKeysClient } from './features/auth/identity-keys-client';
import { changedKeyId } from './features/auth/key-changes';
import { sessionResolver } from './features/auth/session-credentials';
import { KeyCache } from './features/auth/key-cache';
import { NONCE_RETENTION_MS, secretKeyResolver, signedRequestResolver } from './features/auth/key-credentials';
import { createNonceStore, nonceRetentionRule } from './features/auth/nonce-store';
import type { Authenticator } from './features/auth/principal';
import { createUpstreamClient, type UpstreamService } from './features/proxy/upstream-client';
import { createBucketStore } from './features/rate-limits/bucket-store';
import { startBucketPurge } from './features/rate-limits/bucket-purge';
import { createRateLimiter } from './features/rate-limits/rate-limiter';
import { requestLogRetentionRule } from './features/request-logs/request-log-retention';
import { requestLogInternalRouter } from './features/request-logs/request-log-internal-router';
import { requestLogRoutes } from './features/request-logs/request-log-routes';
import { createRequestLogStore } from './features/request-logs/request-log-store';
import { createRequestLogWriter } from './features/request-logs/request-log-writer';
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

export async function start(env: NodeJS.ProcessEnv = process.env, options: GatewayOptions = {}): Promise<RunningGateway> {
  const config = loadGatewayConfig(env);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const metrics = createMetrics(SERVICE);

  useCursorSecret(config.INTERNAL_TOKEN_SECRET);
  // Nonces, rate-limit buckets and request logs: what every instance must share with every other.
  const databaseUrl = serviceDatabaseUrl(SERVICE, env);
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { applicationName: SERVICE, poolMax: 10, logger });
  const closers: Array<() => Promise<void>> = [() => db.destroy()];
  const closeAll = async () => {
    for (const close of [...closers].reverse())
      await close().catch((error: unknown) => logger.warn({ err: error }, 'gateway shutdown step failed'));
  };

  try {
    await migrate(db, migrations);
    if (config.TABLE_MAINTENANCE_INTERVAL_MS > 0) {
      const maintenance = await startTableMaintenance({ db, logger, intervalMs: config.TABLE_MAINTENANCE_INTERVAL_MS });
      closers.push(() => maintenance.stop());
    }
    const nonces = createNonceStore(db);
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

    const nowMs = options.nowMs ?? Date.now;

    const rateLimiter = createRateLimiter(createBucketStore(db), rateLimitPolicies(config), { logger, metrics });
    const bucketPurge = startBucketPurge(rateLimiter, { intervalMs: config.GATEWAY_RATE_LIMIT_PURGE_INTERVAL_MS, logger });
    closers.push(() => bucketPurge.stop());

    const requestLogStore = createRequestLogStore(db, { examineMax: config.GATEWAY_REQUEST_LOG_EXAMINE_MAX });
    const requestLogs = createRequestLogWriter({
      store: requestLogStore,
      logger,
      metrics,
      flushIntervalMs: config.GATEWAY_REQUEST_LOG_FLUSH_INTERVAL_MS,
    });
    // Closers run last to first: the listeners close before this, so the final flush holds every request's record.
    closers.push(() => requestLogs.close());
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

    const upstream = createUpstreamClient({
      urls: { identity: config.IDENTITY_URL, ledger: config.LEDGER_URL, payments: config.PAYMENTS_URL, treasury: config.TREASURY_URL },
      timeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
      logger,
      metrics,
    });
    closers.push(() => upstream.close());
    const credentials = { keys, nonces, nowMs };
    const auth = createAuthService({
      system: [systemKeyAuthenticator(config.SYSTEM_API_KEY)],
      tenant:
        options.tenantAuthenticators ??
        tenantAuthenticators({
          signedRequest: signedRequestResolver(credentials),
          secretKey: secretKeyResolver(credentials),
          session: sessionResolver(identity),
        }),
    });
    const proxyBase = {
      auth,
      upstream,
      internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
      rateLimiter,
      requestLogs,
      localRoutes: new Map(requestLogRoutes(requestLogStore)),
      onUpstreamAnswer: (route: RouteContract, path: string, status: number) => {
        const keyId = changedKeyId(route, path, status);
        if (keyId) keys.invalidate(keyId);
      },
    };
    const routes = options.routes ?? ROUTES;

    const publicApp = createPublicApp({
      logger,
      metrics,
      proxy: { ...proxyBase, table: compileRouteTable(routes) },
      readiness: [
        { name: 'database', check: () => checkDb(db) },
        { name: 'broker', check: () => broker.check() },
        ...UPSTREAMS.map((service) => ({ name: service, check: () => upstream.checkHealth(service) })),
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

    const publicServer = await listen(publicApp, config.GATEWAY_PORT, config.HOST);
    closers.push(() => closeServer(publicServer));
    const adminServer = await listen(adminApp, config.ADMIN_PORT, config.ADMIN_HOST ?? config.HOST);
    closers.push(() => closeServer(adminServer));
    const dashboardServer = await listen(dashboardApp, config.DASHBOARD_PORT, config.DASHBOARD_HOST ?? config.HOST);
    closers.push(() => closeServer(dashboardServer));
    const port = portOf(publicServer, config.GATEWAY_PORT);
    const adminPort = portOf(adminServer, config.ADMIN_PORT);
    const dashboardPort = portOf(dashboardServer, config.DASHBOARD_PORT);
    logger.info({ port, adminPort, dashboardPort }, 'gateway listening');

    return { port, adminPort, dashboardPort, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

if (require.main === module) runMain(() => start());
