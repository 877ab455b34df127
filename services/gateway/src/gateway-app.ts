import {
  AppError,
  correlationMiddleware,
  errorMiddleware,
  healthHandler,
  type Logger,
  metricsHandler,
  type ReadinessCheck,
  type ServiceMetrics,
} from '@wallet/kit';
import express from 'express';
import type { CookiePolicy } from './features/dashboard/dashboard-cookies';
import { cookieCredentials, dashboardSessionRouter, sessionIntoCookie } from './features/dashboard/dashboard-session';
import { dashboardSecurityHeaders, dashboardStatic } from './features/dashboard/dashboard-static';
import type { IdentityKeysClient } from './features/auth/identity-keys-client';
import { docsRouter } from './features/docs/docs-router';
import { type ProxyDependencies, proxyHandler } from './features/proxy/proxy-router';

export const SERVICE = 'gateway';

interface AppBase {
  logger: Logger;
  metrics: ServiceMetrics;
}

/**
 * Browsers must take every answer as the type it declares: a JSON error or an upstream's text
 * that echoes input, sniffed as HTML or script, would run on the listener's origin. First, so
 * that no answer (404s and errors included) goes without it.
 */
const noSniffing: express.RequestHandler = (_request, response, next) => {
  response.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/** What the listeners share at the front (no sniffing, correlation id, timing) and at the back (404, error body). */
function withFrameAround(
  base: AppBase,
  listener: 'public' | 'admin' | 'dashboard',
  mount: (app: express.Express) => void,
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(noSniffing);
  app.use(correlationMiddleware);
  app.use((request, response, next) => {
    const end = base.metrics.httpDuration.startTimer({ method: request.method });
    response.on('finish', () => {
      // Route templates, never raw paths, so the label set stays bounded.
      const route =
        (response.locals.metricRoute as string | undefined) ?? (request.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ route: listener === 'public' ? route : `${listener}:${route}`, status: String(response.statusCode) });
    });
    next();
  });
  mount(app);
  app.use((_request, _response, next) => next(new AppError('NOT_FOUND', 'No such route')));
  app.use(errorMiddleware(base.logger));
  return app;
}

export interface PublicAppOptions extends AppBase {
  proxy: ProxyDependencies;
  readiness: ReadinessCheck[];
  openApiDocument: Record<string, unknown>;
}

/**
 * Every route: health, the API document and every public route of the contracts. Not
 * /metrics: it tells anyone who can reach the API the routes, traffic and upstream errors, so
 * it is on the admin listener only.
 */
export function createPublicApp(options: PublicAppOptions): express.Express {
  return withFrameAround(options, 'public', (app) => {
    // The API first: it is nearly every request, and none of its paths is one of the others'.
    app.use(proxyHandler(options.proxy));
    app.use(healthHandler({ service: SERVICE, metrics: options.metrics, readiness: options.readiness, serveMetrics: false }));
    app.use(docsRouter(options.openApiDocument));
  });
}

/**
 * Only `/v1/system/*` and `/v1/tenants*` (the proxy's route table holds nothing else), the
 * internal routes other services call and `/metrics`: this listener may bind to a private host.
 */
export function createAdminApp(options: AppBase & { proxy: ProxyDependencies; internal?: express.Router }): express.Express {
  return withFrameAround(options, 'admin', (app) => {
    app.use(metricsHandler(options.metrics));
    if (options.internal) app.use(options.internal);
    app.use(proxyHandler(options.proxy));
  });
}

export interface DashboardAppOptions extends AppBase {
  proxy: ProxyDependencies;
  identity: Pick<IdentityKeysClient, 'authenticateSession' | 'endSession'>;
  cookies: CookiePolicy;
  /** The built app (apps/dashboard/dist). */
  distDir: string;
}

/**
 * `{demo_url}`: the dashboard's pages and, on the same origin, the tenant API (and login) with
 * the session in a cookie. Each API request still goes through the proxy's scopes, rate limits
 * and request logs, as the member of the session.
 */
export function createDashboardApp(options: DashboardAppOptions): express.Express {
  return withFrameAround(options, 'dashboard', (app) => {
    app.use(dashboardSecurityHeaders);
    app.use(cookieCredentials(options.cookies));
    app.use(dashboardSessionRouter(options.identity, options.cookies));
    app.use(proxyHandler({ ...options.proxy, rewriteAnswer: sessionIntoCookie(options.cookies) }));
    app.use(dashboardStatic(options.distDir));
  });
}
