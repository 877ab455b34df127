import { buildOpenApiDocument, ROUTES, type ServiceName } from '@wallet/contracts';
import { closeServer, createLogger, createMetrics, listen, runMain, startTelemetry } from '@wallet/kit';
import type { Server } from 'node:http';
import { version } from '../package.json';
import { loadGatewayConfig } from './config';
import { createAuthService } from './features/auth/auth-service';
import { systemKeyAuthenticator, tenantAuthenticators } from './features/auth/authenticators';
import type { Authenticator } from './features/auth/principal';
import { createUpstreamClient } from './features/proxy/upstream-client';
import { compileRouteTable, isAdminPath } from './features/routing/route-table';
import { createAdminApp, createPublicApp, SERVICE } from './gateway-app';

export interface RunningService {
  port: number;
  close(): Promise<void>;
}

export interface RunningGateway extends RunningService {
  /** The admin listener's real port (the system surface only). */
  adminPort: number;
}

export interface GatewayOptions {
  /** Replaces the tenant credential chain; until a key store exists, tests use this to present a tenant principal. */
  tenantAuthenticators?: Authenticator[];
}

const UPSTREAMS: readonly ServiceName[] = ['identity', 'ledger', 'payments', 'treasury'];

function portOf(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}

export async function start(env: NodeJS.ProcessEnv = process.env, options: GatewayOptions = {}): Promise<RunningGateway> {
  startTelemetry(SERVICE);
  const config = loadGatewayConfig(env);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const metrics = createMetrics(SERVICE);

  const upstream = createUpstreamClient({
    urls: { identity: config.IDENTITY_URL, ledger: config.LEDGER_URL, payments: config.PAYMENTS_URL, treasury: config.TREASURY_URL },
    timeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS,
    logger,
    metrics,
  });
  const auth = createAuthService({
    system: [systemKeyAuthenticator(config.SYSTEM_API_KEY)],
    tenant: options.tenantAuthenticators ?? tenantAuthenticators(),
  });
  const proxyBase = { auth, upstream, internalTokenSecret: config.INTERNAL_TOKEN_SECRET };

  const publicApp = createPublicApp({
    logger,
    metrics,
    proxy: { ...proxyBase, table: compileRouteTable(ROUTES) },
    readiness: UPSTREAMS.map((service) => ({ name: service, check: () => upstream.checkHealth(service) })),
    openApiDocument: buildOpenApiDocument({ version }),
  });
  const adminApp = createAdminApp({ logger, metrics, proxy: { ...proxyBase, table: compileRouteTable(ROUTES.filter((route) => isAdminPath(route.path))) } });

  const publicServer = await listen(publicApp, config.GATEWAY_PORT, config.HOST);
  let adminServer: Server;
  try {
    adminServer = await listen(adminApp, config.ADMIN_PORT, config.ADMIN_HOST ?? config.HOST);
  } catch (error) {
    await closeServer(publicServer);
    throw error;
  }
  const port = portOf(publicServer, config.GATEWAY_PORT);
  const adminPort = portOf(adminServer, config.ADMIN_PORT);
  logger.info({ port, adminPort }, 'gateway listening');

  return {
    port,
    adminPort,
    async close() {
      await Promise.all([closeServer(publicServer), closeServer(adminServer)]);
    },
  };
}

if (require.main === module) runMain(() => start());
