import type { RouteContract } from '@wallet/contracts';
import { AppError, correlationIdOf, jsonBodyMiddleware, signInternalToken, INTERNAL_TOKEN_HEADER } from '@wallet/kit';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AuthService } from '../auth/auth-service';
import type { IncomingCall, Principal } from '../auth/principal';
import type { RouteTable } from '../routing/route-table';
import type { UpstreamClient, UpstreamService } from './upstream-client';

/** The only client headers a service sees; credentials and hop-by-hop headers stay here. */
const FORWARDED_HEADERS = ['content-type', 'idempotency-key', 'x-service-actor-type', 'x-service-actor-id'] as const;

/** fetch cannot send a body with these; their bodies are still read, so still size- and JSON-checked. */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export interface ProxyDependencies {
  table: RouteTable;
  auth: AuthService;
  upstream: UpstreamClient;
  internalTokenSecret: string;
}

function splitUrl(originalUrl: string): { path: string; query: string } {
  const questionMark = originalUrl.indexOf('?');
  return questionMark < 0 ? { path: originalUrl, query: '' } : { path: originalUrl.slice(0, questionMark), query: originalUrl.slice(questionMark + 1) };
}

function routeOf(response: Response): RouteContract {
  const route = response.locals.route as RouteContract | undefined;
  if (!route) throw new Error('proxy handler ran without a matched route');
  return route;
}

function incomingCall(request: Request, response: Response): IncomingCall {
  return {
    method: request.method,
    pathWithQuery: request.originalUrl,
    header: (name) => request.get(name) || undefined,
    rawBody: response.locals.rawBody as Buffer,
    remoteAddress: request.socket.remoteAddress,
  };
}

function internalToken(secret: string, principal: Principal, correlationId: string): string {
  return signInternalToken(secret, {
    surface: principal.surface,
    authMode: principal.authMode,
    tenantId: principal.tenantId,
    environment: principal.environment,
    keyId: principal.keyId,
    scopes: principal.scopes,
    actor: principal.actor,
    correlationId,
  });
}

/**
 * Every public route of the contracts: match, read and check the body, authenticate and
 * authorize, then hand the raw request to the owning service and its answer back unchanged.
 */
export function proxyRouter(dependencies: ProxyDependencies): express.Router {
  const router = express.Router();

  router.use((request: Request, response: Response, next: NextFunction) => {
    const { path } = splitUrl(request.originalUrl);
    const route = dependencies.table.match(request.method, path);
    // A known path with another method answers like an unknown path: one shape for "no such route".
    if (!route) return next(new AppError('NOT_FOUND', 'No such route'));
    response.locals.route = route;
    response.locals.metricRoute = route.path;
    next();
  });

  // Parsed losslessly only to refuse what is not JSON; the raw bytes are what travels on.
  router.use(jsonBodyMiddleware());

  router.use(async (request: Request, response: Response) => {
    const route = routeOf(response);
    const correlationId = correlationIdOf(response);
    const principal = await dependencies.auth.authorize(route, incomingCall(request, response));
    if (route.service === 'gateway') throw new AppError('NOT_FOUND', 'No such route');

    const headers: Record<string, string> = {
      [INTERNAL_TOKEN_HEADER]: internalToken(dependencies.internalTokenSecret, principal, correlationId),
      'x-correlation-id': correlationId,
    };
    for (const name of FORWARDED_HEADERS) {
      const value = request.get(name);
      if (value) headers[name] = value;
    }
    const rawBody = response.locals.rawBody as Buffer;
    const method = request.method.toUpperCase();

    // An upstream that times out after receiving a write may still commit it: the client's
    // Idempotency-Key is what makes the retry the 503 invites safe.
    const answer = await dependencies.upstream.forward({
      service: route.service as UpstreamService,
      method,
      pathWithQuery: request.originalUrl,
      headers,
      body: rawBody.length > 0 && !BODYLESS_METHODS.has(method) ? rawBody : undefined,
    });

    response.status(answer.status);
    for (const [name, value] of answer.headers) response.setHeader(name, value);
    response.setHeader('X-Correlation-Id', correlationId);
    response.end(answer.body);
  });

  return router;
}
