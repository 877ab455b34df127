import type { ServiceName } from '@wallet/contracts';
import { AppError, type Logger, type ServiceMetrics } from '@wallet/kit';
import { type Dispatcher, Pool } from 'undici';

/** The services behind the gateway; `gateway` routes are answered in-process. */
export type UpstreamService = Exclude<ServiceName, 'gateway'>;
export type UpstreamUrls = Record<UpstreamService, string>;

export interface UpstreamRequest {
  service: UpstreamService;
  method: string;
  /** Path plus `?query` exactly as the client sent them. */
  pathWithQuery: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export interface UpstreamResponse {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

/**
 * Headers that describe one connection, not the message (RFC 9110 section 7.6.1), plus the
 * ones the gateway sets itself: its own framing, its own correlation id, its own date. The
 * body travels as the service's bytes, so its content-encoding travels with it.
 */
const NOT_PASSED_BACK: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'x-correlation-id',
  'date',
  // Services set no cookies; the public origin's cookies are the gateway's business alone.
  'set-cookie',
]);

const HEALTH_TIMEOUT_MS = 2_000;

export interface UpstreamClient {
  forward(request: UpstreamRequest): Promise<UpstreamResponse>;
  /** Resolves when the service's /healthz answers 2xx, rejects otherwise. */
  checkHealth(service: UpstreamService): Promise<void>;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

/** Keep-alive connections per service: enough for the requests in flight, reused across them. */
const CONNECTIONS_PER_SERVICE = 128;

interface Upstream {
  pool: Pool;
  /** The base URL's path, kept in front of every forwarded path. */
  basePath: string;
}

/** The response's header lines as undici hands them over (name, value, name, value, ...), minus those not passed back. */
function passedBackHeaders(rawHeaders: readonly Buffer[]): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  const listedInConnection = new Set<string>();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = String(rawHeaders[index]).toLowerCase();
    const value = String(rawHeaders[index + 1]);
    if (name === 'connection') {
      for (const token of value.split(',')) listedInConnection.add(token.trim().toLowerCase());
    }
    lines.push([name, value]);
  }
  return lines.filter(([name]) => !NOT_PASSED_BACK.has(name) && !listedInConnection.has(name));
}

/**
 * One exchange over the pool, its body gathered as the bytes arrive: undici's request() would
 * wrap each answer in a Readable stream and an async resource, only for the whole body to be
 * read at once here.
 */
function exchange(pool: Pool, options: Dispatcher.DispatchOptions): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Array<[string, string]> = [];
    const chunks: Buffer[] = [];
    const handler: Dispatcher.DispatchHandler = {
      onConnect: () => undefined,
      onHeaders: (statusCode, rawHeaders) => {
        // 1xx (100 Continue, 103 Early Hints) precede the answer; they are not it.
        if (statusCode < 200) return true;
        status = statusCode;
        headers = passedBackHeaders(rawHeaders);
        return true;
      },
      onData: (chunk) => {
        chunks.push(chunk);
        return true;
      },
      onComplete: () => resolve({ status, headers, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) }),
      onError: reject,
    };
    pool.dispatch(options, handler);
  });
}

function isTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

/**
 * One pooled HTTP/1.1 client per service (undici), so the hop reuses warm connections instead
 * of paying fetch's per-request machinery: the gateway's second network hop is on every call.
 */
export function createUpstreamClient(options: {
  urls: UpstreamUrls;
  timeoutMs: number;
  logger: Logger;
  metrics: ServiceMetrics;
}): UpstreamClient {
  const outcomes = options.metrics.counter('gateway_upstream_requests_total', 'Calls from the gateway to the services, by outcome', [
    'service',
    'outcome',
  ]);
  const upstreams = new Map<UpstreamService, Upstream>();
  for (const [service, base] of Object.entries(options.urls) as Array<[UpstreamService, string]>) {
    const url = new URL(base);
    upstreams.set(service, {
      pool: new Pool(url.origin, { connections: CONNECTIONS_PER_SERVICE }),
      basePath: url.pathname.replace(/\/+$/, ''),
    });
  }
  const upstreamOf = (service: UpstreamService): Upstream => {
    const upstream = upstreams.get(service);
    if (!upstream) throw new Error(`no upstream configured for ${service}`);
    return upstream;
  };

  return {
    async forward(request) {
      const upstream = upstreamOf(request.service);
      try {
        // undici's own timers bound the wait for the answer and each wait within its body (a slow
        // body is as down as no answer), without an AbortSignal and its timer per call.
        const response = await exchange(upstream.pool, {
          path: `${upstream.basePath}${request.pathWithQuery}`,
          method: request.method as Dispatcher.HttpMethod,
          headers: request.headers,
          body: request.body,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        outcomes.inc({ service: request.service, outcome: 'answered' });
        return response;
      } catch (error) {
        const timedOut = isTimeout(error);
        outcomes.inc({ service: request.service, outcome: timedOut ? 'timeout' : 'unreachable' });
        options.logger.warn({ err: error, service: request.service, timedOut }, 'upstream call failed');
        throw new AppError('SERVICE_UNAVAILABLE', `The ${request.service} service is not available; try again later`, {
          service: request.service,
        });
      }
    },
    async checkHealth(service) {
      const upstream = upstreamOf(service);
      const response = await upstream.pool.request({
        path: `${upstream.basePath}/healthz`,
        method: 'GET',
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      });
      await response.body.arrayBuffer();
      if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`healthz answered ${response.statusCode}`);
    },
    async close() {
      await Promise.all([...upstreams.values()].map((upstream) => upstream.pool.close()));
    },
  };
}
