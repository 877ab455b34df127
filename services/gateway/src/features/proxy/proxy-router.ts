import type { RouteContract } from '@wallet/contracts';
import {
  AppError,
  bindCursors,
  correlationIdOf,
  INTERNAL_TOKEN_HEADER,
  type InternalClaims,
  internalTokenSigner,
  readJsonBody,
  refuseUnsafeUrl,
  routeName,
} from '@wallet/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type AuthService, AuthorizationRefused } from '../auth/auth-service';
import type { IncomingCall, Principal } from '../auth/principal';
import { enforceRateLimit, writeRateLimitHeaders } from '../rate-limits/rate-limit-headers';
import type { RateLimiter } from '../rate-limits/rate-limiter';
import { notePrincipal, noteUpstreamAnswer, requestLogRecorder } from '../request-logs/request-log-recorder';
import type { RequestLogWriter } from '../request-logs/request-log-writer';
import type { RouteTable } from '../routing/route-table';
import type { LocalRoutes } from './local-routes';
import type { UpstreamClient, UpstreamResponse, UpstreamService } from './upstream-client';

/** The only client headers a service sees; credentials and hop-by-hop headers stay here. */
const FORWARDED_HEADERS = ['content-type', 'idempotency-key', 'x-service-actor-type', 'x-service-actor-id'] as const;

/** fetch cannot send a body with these; their bodies are still read, so still size- and JSON-checked. */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export interface ProxyDependencies {
  table: RouteTable;
  auth: AuthService;
  upstream: UpstreamClient;
  internalTokenSecret: string;
  rateLimiter: RateLimiter;
  requestLogs: RequestLogWriter;
  /** Handlers of the routes whose service is `gateway`. */
  localRoutes: LocalRoutes;
  /** Told of every upstream answer, after it was sent on: what the gateway must learn from a change it passed (a key revoked). */
  onUpstreamAnswer?: (route: RouteContract, path: string, status: number) => void;
  /** Changes an upstream answer before it is sent on (the dashboard keeps a new session's token out of the page). */
  rewriteAnswer?: (route: RouteContract, answer: UpstreamResponse, request: Request, response: Response) => UpstreamResponse;
}

function splitUrl(originalUrl: string): { path: string; query: string } {
  const questionMark = originalUrl.indexOf('?');
  return questionMark < 0
    ? { path: originalUrl, query: '' }
    : { path: originalUrl.slice(0, questionMark), query: originalUrl.slice(questionMark + 1) };
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

function claimsOf(principal: Principal): Omit<InternalClaims, 'exp'> {
  return {
    surface: principal.surface,
    authMode: principal.authMode,
    tenantId: principal.tenantId,
    environment: principal.environment,
    keyId: principal.keyId,
    scopes: principal.scopes,
    actor: principal.actor,
  };
}

/** 401s only: a refused scope or address is no guess at a credential. */
function isFailedAuthentication(error: unknown): boolean {
  return error instanceof AppError && error.status === 401;
}

/** The headers a service gets: the internal token, the correlation id and the client's FORWARDED_HEADERS, nothing else. */
function forwardedHeaders(request: Request, token: string, correlationId: string): Record<string, string> {
  const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: token, 'x-correlation-id': correlationId };
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') headers[name] = value;
  }
  return headers;
}

/** Sends an upstream answer on unchanged (unless the listener rewrites it), then tells whoever must learn from it. */
function sendUpstreamAnswer(
  dependencies: ProxyDependencies,
  route: RouteContract,
  forwarded: UpstreamResponse,
  request: Request,
  response: Response,
  correlationId: string,
): void {
  const answer = dependencies.rewriteAnswer ? dependencies.rewriteAnswer(route, forwarded, request, response) : forwarded;
  response.setHeader('X-Correlation-Id', correlationId);
  writeUpstreamAnswer(response, answer);
  dependencies.onUpstreamAnswer?.(route, splitUrl(request.originalUrl).path, answer.status);
}

/** An upstream answer written on the response as it came (its own correlation id aside), its error code noted for the request log. */
export function writeUpstreamAnswer(response: Response, answer: UpstreamResponse): void {
  noteUpstreamAnswer(response, answer);
  response.statusCode = answer.status;
  for (const [name, value] of answer.headers) response.setHeader(name, value);
  response.end(answer.body);
}

/**
 * A route of service `gateway`, answered here; its handler may read the services as the caller
 * (an export walking a list), each read with a fresh internal token.
 */
async function answerLocally(
  dependencies: ProxyDependencies,
  route: RouteContract,
  call: { principal: Principal; request: Request; response: Response },
  headersAsCaller: () => Record<string, string>,
): Promise<void> {
  const handler = dependencies.localRoutes.get(routeName(route));
  if (!handler) throw new AppError('NOT_FOUND', 'No such route');
  const { principal, request } = call;
  bindCursors({ path: request.path, surface: principal.surface, tenantId: principal.tenantId, environment: principal.environment });
  const readAsCaller = (service: UpstreamService, pathWithQuery: string) =>
    dependencies.upstream.forward({ service, method: 'GET', pathWithQuery, headers: headersAsCaller(), body: undefined });
  await handler({ ...call, readAsCaller });
}

/**
 * Every public route of the contracts: match, record, rate-limit the address, read and check
 * the body, authenticate and authorize, rate-limit the credential and the tenant, then answer
 * locally (service `gateway`) or hand the raw request to the owning service and its answer
 * back unchanged. A path no route has (or a known path with another method, which answers
 * the same) goes on to the app's other handlers and, failing those, its 404.
 *
 * One handler rather than a router of middlewares: every API request passes here, and each
 * router layer cost it a path match and a chain of callbacks.
 */
export function proxyHandler(dependencies: ProxyDependencies): RequestHandler {
  const record = requestLogRecorder(dependencies.requestLogs);
  const internalToken = internalTokenSigner(dependencies.internalTokenSecret);
  const bodyOptions = { optIn: (_request: Request, response: Response) => routeOf(response).bodyOptIn, parsing: 'check' as const };

  async function handle(request: Request, response: Response, route: RouteContract): Promise<void> {
    // Before the body is read: an address over its limit costs no more than this.
    enforceRateLimit(response, await dependencies.rateLimiter.beforeAuthentication(route.surface, request.socket.remoteAddress));
    // Checked only to refuse what is not JSON; the raw bytes are what travels on, and each
    // service parses them losslessly itself. A route that opted in (a CSV statement import)
    // also takes its media types, up to its own limit.
    await readJsonBody(request, response, bodyOptions);

    const correlationId = correlationIdOf(response);
    let principal: Principal;
    try {
      principal = await dependencies.auth.authorize(route, incomingCall(request, response));
    } catch (error) {
      if (error instanceof AuthorizationRefused) notePrincipal(response, error.principal);
      if (isFailedAuthentication(error)) {
        // The 401 stands even when the address had no token left for it; the next attempt is the one refused.
        writeRateLimitHeaders(response, await dependencies.rateLimiter.afterFailedAuthentication(request.socket.remoteAddress));
      }
      throw error;
    }
    notePrincipal(response, principal);
    enforceRateLimit(response, await dependencies.rateLimiter.afterAuthentication(principal, request.socket.remoteAddress));
    // After authentication, so that a caller without credentials learns nothing of ids.
    if (!dependencies.table.idsWellFormed(route, splitUrl(request.originalUrl).path)) throw new AppError('NOT_FOUND', 'No such resource');
    refuseUnsafeUrl(request);

    if (route.service === 'gateway') {
      const headersAsCaller = () => forwardedHeaders(request, internalToken(claimsOf(principal)), correlationId);
      return answerLocally(dependencies, route, { principal, request, response }, headersAsCaller);
    }

    const headers = forwardedHeaders(request, internalToken(claimsOf(principal)), correlationId);
    const rawBody = response.locals.rawBody as Buffer;
    const method = request.method.toUpperCase();

    // An upstream that times out after receiving a write may still commit it: the client's
    // Idempotency-Key is what makes the retry the 503 invites safe.
    const forwarded = await dependencies.upstream.forward({
      service: route.service as UpstreamService,
      method,
      pathWithQuery: request.originalUrl,
      headers,
      body: rawBody.length > 0 && !BODYLESS_METHODS.has(method) ? rawBody : undefined,
    });

    sendUpstreamAnswer(dependencies, route, forwarded, request, response, correlationId);
  }

  return (request: Request, response: Response, next: NextFunction) => {
    const route = dependencies.table.match(request.method, splitUrl(request.originalUrl).path);
    if (!route) return next();
    response.locals.route = route;
    response.locals.metricRoute = route.path;
    // From here on every request leaves a record, refusals included.
    record(request, response);
    handle(request, response, route).catch(next);
  };
}
