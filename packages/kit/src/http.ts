import { isUtf8 } from 'node:buffer';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { CORRELATION_ID_PATTERN } from '@wallet/contracts/common';
import { type ErrorBody } from '@wallet/contracts/errors';
import { sortableId } from '@wallet/contracts/ids';
import { isLosslessNumber, parseJsonLossless } from '@wallet/contracts/json';
import { foreground } from './background-pace';
import { currentContext, runWithContext } from './context';
import { bindCursors } from './cursor';
import { DEPENDENCY_RETRY_AFTER_SECONDS, dependencyUnavailableAnswer } from './dependency-errors';
import { AppError, refuseUnsafeText, RetryLaterError } from './errors';
import { INTERNAL_TOKEN_HEADER, type InternalClaims, internalTokenVerifier } from './internal-token';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';

export const CORRELATION_HEADER = 'x-correlation-id';
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

/**
 * Takes the client's correlation id when well formed, else makes one; every response echoes it.
 * A made one sorts by time (sortableId): request logs index correlation ids, and a new id then
 * lands at the index's end instead of on a random page, which after each checkpoint costs a
 * full-page image in the WAL.
 */
export function correlationMiddleware(request: Request, response: Response, next: NextFunction): void {
  const given = request.headers[CORRELATION_HEADER];
  const correlationId = typeof given === 'string' && CORRELATION_ID_PATTERN.test(given) ? given : sortableId();
  response.setHeader('X-Correlation-Id', correlationId);
  response.locals.correlationId = correlationId;
  runWithContext({ correlationId }, next);
}

export function correlationIdOf(response: Response): string {
  return (response.locals.correlationId as string | undefined) ?? currentContext()?.correlationId ?? 'none';
}

function mediaTypeOf(contentType: string | undefined): string {
  return contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = mediaTypeOf(contentType);
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** A route that takes other media types besides JSON (read as UTF-8 text), with its own body limit. */
export interface BodyOptIn {
  mediaTypes: readonly string[];
  limitBytes: number;
}

/** A service route's opt-in, matched on its method and exact path. */
export interface BodyOptInRoute extends BodyOptIn {
  method: string;
  path: string;
}

/** The opt-in of the request's route, from a list of service routes. */
export function bodyOptInOfRoutes(routes: readonly BodyOptInRoute[]): (request: Request) => BodyOptIn | undefined {
  return (request) => routes.find((route) => route.method.toUpperCase() === request.method.toUpperCase() && route.path === request.path);
}

/** Whether the client framed a body: a length above zero, or chunks. */
function declaresBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined ||
    (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0')
  );
}

function tooLarge(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than allowed');
}

/**
 * The request's body as the bytes received, at most `limitBytes` of them (413 PAYLOAD_TOO_LARGE,
 * refused on a declared length before anything is read). A content coding (gzip, ...) is refused
 * with 415: bodies are signed and hashed as sent, and nothing here inflates them.
 */
export function readRequestBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const coding = request.headers['content-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
    return Promise.reject(new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${coding} is not supported; send the body as is`));
  }
  if (!declaresBody(request)) return Promise.resolve(Buffer.alloc(0));
  if (Number(request.headers['content-length']) > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        // node discards the rest once the answer is sent.
        request.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new AppError('VALIDATION_ERROR', `The request body could not be read: ${error.message}`));
    };
    const onAborted = () => onError(new Error('the client aborted the request'));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}

/**
 * A `charset` parameter other than UTF-8 (any case, quoted or not), or null. Every one counts: a
 * header naming two charsets (`charset=utf-8; charset=utf-16`) is read differently by different
 * parsers, so it is refused unless both say UTF-8.
 */
function foreignCharset(contentType: string | undefined): string | null {
  for (const match of (contentType ?? '').matchAll(/;\s*charset\s*=\s*"?([^";\s]*)"?/gi)) {
    const charset = (match[1] ?? '').toLowerCase();
    if (charset !== 'utf-8') return charset;
  }
  return null;
}

/**
 * The body as text. Only UTF-8 is read: a body declared in another charset would otherwise be
 * decoded as UTF-8 into something the client never sent (and signed bytes would mean two things).
 */
function decodeUtf8(body: Buffer, contentType: string | undefined): string {
  const charset = foreignCharset(contentType);
  if (charset !== null) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Request bodies must be UTF-8; charset=${charset} is not supported`);
  // Decoding alone would turn each invalid byte into U+FFFD: text the client never sent, stored as if it had.
  if (!isUtf8(body))
    throw new AppError('VALIDATION_ERROR', 'The request body is not valid UTF-8', {
      fields: [{ path: 'body', message: 'must be valid UTF-8' }],
    });
  return body.toString('utf8');
}

/**
 * Every JSON body the API takes is an object: a bare value (`123`, `"x"`, `[]`, `null`) is
 * refused, never read as an empty object, so a route whose fields are all optional does not act
 * on a body that meant something else.
 */
function refuseNonObjectBody(value: unknown): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isLosslessNumber(value)) return;
  throw new AppError('VALIDATION_ERROR', 'The request body must be a JSON object', {
    fields: [{ path: 'body', message: 'must be a JSON object' }],
  });
}

/**
 * How a body is taken: `lossless` parses JSON keeping every number token's exact text (what a
 * service works with); `check` only refuses what is not JSON, with the engine's parser, and
 * leaves `request.body` unset (the gateway, which forwards the raw bytes and reads none).
 */
export type BodyParsing = 'lossless' | 'check';

export interface JsonBodyOptions {
  limitBytes?: number;
  optIn?: (request: Request, response: Response) => BodyOptIn | undefined;
  parsing?: BodyParsing;
}

/**
 * Reads the raw body (kept on `res.locals.rawBody` for signatures) and parses it as `parsing`
 * says. A route that opted in (`optIn`) also takes its other media types, as a UTF-8 string in
 * `request.body`, up to its own limit.
 */
export async function readJsonBody(request: Request, response: Response, options: JsonBodyOptions = {}): Promise<void> {
  const optIn = options.optIn?.(request, response);
  const body = await readRequestBody(request, optIn?.limitBytes ?? options.limitBytes ?? BODY_LIMIT_BYTES);
  response.locals.rawBody = body;
  request.body = undefined;
  if (body.length === 0) return;
  const contentType = request.headers['content-type'];
  if (!isJsonContentType(contentType)) {
    if (optIn?.mediaTypes.includes(mediaTypeOf(contentType))) {
      request.body = decodeUtf8(body, contentType);
      refuseUnsafeText(request.body, 'body');
      return;
    }
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      optIn ? `Request bodies must be application/json or ${optIn.mediaTypes.join(', ')}` : 'Request bodies must be application/json',
    );
  }
  const text = decodeUtf8(body, contentType);
  let parsed: unknown;
  try {
    parsed = options.parsing === 'check' ? JSON.parse(text) : parseJsonLossless(text);
  } catch (error) {
    throw new AppError('MALFORMED_JSON', `Request body is not valid JSON: ${(error as Error).message}`);
  }
  refuseNonObjectBody(parsed);
  if (options.parsing === 'check') return;
  request.body = parsed;
  refuseUnsafeText(request.body, 'body');
}

/**
 * A NUL can reach a URL only percent-encoded: one in the path names nothing that exists (404),
 * one in the query is a bad filter (400 naming it). Cheap for every other request: one search
 * of the URL's text.
 */
export function refuseUnsafeUrl(request: Request): void {
  const url = request.originalUrl;
  const nul = url.indexOf('%00');
  if (nul < 0) return;
  const questionMark = url.indexOf('?');
  if (questionMark < 0 || nul < questionMark) throw new AppError('NOT_FOUND', 'No such resource');
  refuseUnsafeText(request.query, 'query');
}

/** readJsonBody as a middleware. */
export function jsonBodyMiddleware(options: JsonBodyOptions = {}) {
  return (request: Request, response: Response, next: NextFunction): void => {
    readJsonBody(request, response, options).then(() => next(), next);
  };
}

export function errorBody(error: AppError, correlationId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      correlationId,
    },
  };
}

/** The one place that turns errors into HTTP responses. */
export function errorMiddleware(logger: Logger) {
  return (error: unknown, _request: Request, response: Response, _next: NextFunction): void => {
    let appError: AppError;
    const unavailable = error instanceof AppError ? null : dependencyUnavailableAnswer(error);
    if (error instanceof AppError) {
      appError = error;
    } else if (unavailable) {
      logger.warn({ err: error }, 'a dependency is unavailable');
      appError = unavailable;
    } else {
      logger.error({ err: error }, 'unhandled error');
      appError = new AppError('INTERNAL_ERROR', 'Something went wrong on our side');
    }
    if (response.headersSent) return;
    if (appError instanceof RetryLaterError) response.setHeader('Retry-After', String(appError.retryAfterSeconds));
    // Every 503 says when to come back (a handler may have set its own).
    else if (appError.status === 503 && !response.hasHeader('Retry-After'))
      response.setHeader('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
    response.locals.errorCode = appError.code;
    response.status(appError.status).json(errorBody(appError, correlationIdOf(response)));
  };
}

/** The code of the error body errorMiddleware answered with, for whoever records the outcome once the response finished. */
export function errorCodeOf(response: Response): string | undefined {
  const code: unknown = response.locals.errorCode;
  return typeof code === 'string' ? code : undefined;
}

/** Every service's tenant-data route requires the gateway's short-lived internal token. */
export function internalTokenMiddleware(secret: string) {
  const verify = internalTokenVerifier(secret);
  return (request: Request, response: Response, next: NextFunction): void => {
    const token = request.headers[INTERNAL_TOKEN_HEADER];
    const claims = typeof token === 'string' && token !== '' ? verify(token) : null;
    if (!claims) return next(new AppError('INVALID_INTERNAL_TOKEN', 'A valid internal token is required'));
    response.locals.claims = claims;
    bindCursors({ path: request.path, surface: claims.surface, tenantId: claims.tenantId, environment: claims.environment });
    next();
  };
}

export function claimsOf(response: Response): InternalClaims {
  const claims = response.locals.claims as InternalClaims | undefined;
  if (!claims) throw new Error('claimsOf called on a route without internalTokenMiddleware');
  return claims;
}

/** The tenant and environment a tenant-surface request acts in; system tokens have none. */
export function tenantScopeOf(response: Response): { tenantId: string; environment: 'test' | 'live' } {
  const claims = claimsOf(response);
  if (claims.surface !== 'tenant' || !claims.tenantId || !claims.environment) {
    throw new AppError('INSUFFICIENT_SCOPE', 'This route is for tenant credentials');
  }
  return { tenantId: claims.tenantId, environment: claims.environment };
}

export function requireSystem(response: Response): void {
  if (claimsOf(response).surface !== 'system') throw new AppError('INSUFFICIENT_SCOPE', 'This route is for the platform operator');
}

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  metrics: ServiceMetrics;
  internalTokenSecret: string;
  readiness: ReadinessCheck[];
  /** Mounts the service's routers; every route below requires an internal token. */
  routes: (app: express.Express) => void;
  /** Routes that take a non-JSON body or a larger one. */
  bodyOptIns?: readonly BodyOptInRoute[];
}

async function sendMetrics(metrics: ServiceMetrics, response: Response): Promise<void> {
  response.setHeader('Content-Type', metrics.registry.contentType);
  response.send(await metrics.registry.metrics());
}

/**
 * /healthz (the process answers), /readyz (every check passes, else 503) and, unless
 * `serveMetrics` is false, /metrics, for GET and HEAD; any other request goes on. One handler
 * rather than a router: every request of the service passes it.
 */
export function healthHandler(options: {
  service: string;
  metrics: ServiceMetrics;
  readiness: ReadinessCheck[];
  serveMetrics?: boolean;
}): RequestHandler {
  const answers = new Map<string, (response: Response) => Promise<void>>([
    [
      '/healthz',
      async (response) => {
        response.json({ status: 'ok', service: options.service });
      },
    ],
    [
      '/readyz',
      async (response) => {
        const checks = await Promise.all(
          options.readiness.map(async ({ name, check }) => {
            try {
              await check();
              return { name, status: 'ok' as const };
            } catch (error) {
              return { name, status: 'down' as const, message: (error as Error).message };
            }
          }),
        );
        const ready = checks.every((check) => check.status === 'ok');
        response.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'down', service: options.service, checks });
      },
    ],
  ]);
  if (options.serveMetrics !== false) answers.set('/metrics', (response) => sendMetrics(options.metrics, response));
  return (request, response, next) => {
    const answer = request.method === 'GET' || request.method === 'HEAD' ? answers.get(request.path) : undefined;
    if (!answer) return next();
    answer(response).catch(next);
  };
}

/** /metrics alone (GET and HEAD), for a listener that serves nothing else of healthHandler's. */
export function metricsHandler(metrics: ServiceMetrics): RequestHandler {
  return (request, response, next) => {
    if (request.path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) return next();
    sendMetrics(metrics, response).catch(next);
  };
}

/** Paths an operator's tools call: not traffic a background run gives way to. */
const OPERATIONS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** express app with /healthz, /readyz, /metrics, correlation ids, lossless JSON and one error body. */
export function createServiceApp(options: ServiceAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(correlationMiddleware);
  app.use((request, response, next) => {
    const end = options.metrics.httpDuration.startTimer({ method: request.method });
    if (!request.path.startsWith('/internal/') && !OPERATIONS_PATHS.has(request.path)) foreground.note();
    response.on('finish', () =>
      end({ route: (request.route as { path?: string } | undefined)?.path ?? 'unmatched', status: String(response.statusCode) }),
    );
    next();
  });
  app.use(healthHandler(options));
  app.use((request, _response, next) => {
    refuseUnsafeUrl(request);
    next();
  });
  app.use(jsonBodyMiddleware({ optIn: bodyOptInOfRoutes(options.bodyOptIns ?? []) }));
  app.use(internalTokenMiddleware(options.internalTokenSecret));
  options.routes(app);
  app.use((_request, _response, next) => next(new AppError('NOT_FOUND', 'No such route')));
  app.use(errorMiddleware(options.logger));
  return app;
}

/**
 * The request and response classes of an express app's server: node builds each request and
 * response with the app's own prototypes from the start. express otherwise re-parents both
 * with Object.setPrototypeOf on every request, and V8 answers that with fresh hidden classes
 * and inline-cache misses on every later property access of either (about a quarter of the
 * gateway's and payments' CPU); re-parenting onto the prototype an object already has is a no-op.
 */
function expressMessageClasses(app: express.Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  function AppRequest(this: IncomingMessage, socket: Socket): void {
    http.IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, request: IncomingMessage, options?: unknown): void {
    Reflect.apply(http.ServerResponse, this, [request, options]);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}

export async function listen(app: express.Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(expressMessageClasses(app), app);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Who an audit record names for this call: the actor the caller declared (a session's member,
 * or a key's actor headers), else the key itself, else the platform operator.
 */
export function auditActorOf(claims: InternalClaims): { actorType: string; actorId: string; apiKeyId: string | null } {
  if (claims.actor) return { actorType: claims.actor.type, actorId: claims.actor.id, apiKeyId: claims.keyId };
  if (claims.keyId) return { actorType: 'api_key', actorId: claims.keyId, apiKeyId: claims.keyId };
  return {
    actorType: claims.surface === 'system' ? 'system' : 'unknown',
    actorId: claims.surface === 'system' ? 'system' : 'unknown',
    apiKeyId: null,
  };
}
