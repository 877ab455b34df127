import type { ServiceName } from '@wallet/contracts';
import { AppError, type Logger, type ServiceMetrics } from '@wallet/kit';

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
 * ones the gateway sets itself: its own framing, its own correlation id, its own date.
 * fetch has already undone any content-encoding, so that header would lie.
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
  'content-encoding',
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
}

function joinUrl(base: string, pathWithQuery: string): string {
  return `${base.replace(/\/+$/, '')}${pathWithQuery}`;
}

function passedBackHeaders(headers: Headers): Array<[string, string]> {
  const listedInConnection = new Set(
    (headers.get('connection') ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
  const kept: Array<[string, string]> = [];
  headers.forEach((value, name) => {
    if (!NOT_PASSED_BACK.has(name) && !listedInConnection.has(name)) kept.push([name, value]);
  });
  return kept;
}

export function createUpstreamClient(options: { urls: UpstreamUrls; timeoutMs: number; logger: Logger; metrics: ServiceMetrics }): UpstreamClient {
  const outcomes = options.metrics.counter('gateway_upstream_requests_total', 'Calls from the gateway to the services, by outcome', ['service', 'outcome']);
  return {
    async forward(request) {
      const url = joinUrl(options.urls[request.service], request.pathWithQuery);
      try {
        // The signal bounds the whole exchange, body included; a slow body is as down as no answer.
        const response = await fetch(url, {
          method: request.method,
          headers: request.headers,
          body: request.body ? new Uint8Array(request.body.buffer, request.body.byteOffset, request.body.byteLength) : undefined,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const body = Buffer.from(await response.arrayBuffer());
        outcomes.inc({ service: request.service, outcome: 'answered' });
        return { status: response.status, headers: passedBackHeaders(response.headers), body };
      } catch (error) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        outcomes.inc({ service: request.service, outcome: timedOut ? 'timeout' : 'unreachable' });
        options.logger.warn({ err: error, service: request.service, timedOut }, 'upstream call failed');
        throw new AppError('SERVICE_UNAVAILABLE', `The ${request.service} service is not available; try again later`, { service: request.service });
      }
    },
    async checkHealth(service) {
      const response = await fetch(joinUrl(options.urls[service], '/healthz'), { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`healthz answered ${response.status}`);
    },
  };
}
