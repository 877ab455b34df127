import { randomUUID } from 'node:crypto';
import { type Actor, credentialHeaders, type SigningClock, type WalletAuth } from './auth';
import { isKnownErrorCode, WalletApiError, WalletNetworkError } from './errors';

/** What the client reads of an answer: the global fetch's Response is one. */
export interface FetchLikeResponse {
  status: number;
  headers: Headers;
  text(): Promise<string>;
}

/**
 * The part of fetch the client uses: the global fetch is one. A client sending many requests
 * can pass a lighter one (for instance over undici's Pool.request, which skips web streams).
 * It must not follow redirects: a redirect would send the signed request to a path it was not
 * signed for.
 */
export type FetchLike = (
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: Uint8Array<ArrayBuffer>; signal: AbortSignal; redirect: 'manual' },
) => Promise<FetchLikeResponse>;

export interface TransportSettings {
  baseUrl: URL;
  auth: WalletAuth | null;
  fetch: FetchLike;
  clock: SigningClock;
  userAgent: string;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
}

/** One logical call, fixed before the first attempt: every retry sends these same bytes. */
export interface PreparedRequest {
  method: string;
  /** Path and query as they should go on the wire, relative to the base URL's path. */
  pathWithQuery: string;
  body: Buffer<ArrayBuffer>;
  contentType: string | null;
  idempotencyKey: string | null;
  actor: Actor | null;
  correlationId: string | null;
  timeoutMs: number;
  maxRetries: number;
  signal: AbortSignal | undefined;
}

export interface TransportResult {
  status: number;
  headers: Headers;
  text: string;
  correlationId: string | null;
  idempotencyKey: string | null;
  attempts: number;
}

/** The URL a path goes to, and the path and query exactly as the server will read them. */
export function resolveUrl(baseUrl: URL, pathWithQuery: string): { url: URL; wirePath: string } {
  if (!pathWithQuery.startsWith('/')) throw new TypeError(`Request paths start with "/": ${pathWithQuery}`);
  const prefix = baseUrl.pathname.replace(/\/+$/, '');
  const url = new URL(`${baseUrl.origin}${prefix}${pathWithQuery}`);
  // Signed as the URL parser will serialise it, not as written: they differ when the caller's
  // text has characters the parser encodes, and the server verifies what it receives.
  return { url, wirePath: `${url.pathname}${url.search}` };
}

/** A network-level failure of one attempt, before it becomes a retry or a WalletNetworkError. */
class AttemptFailure {
  constructor(
    readonly cause: unknown,
    readonly timedOut: boolean,
  ) {}
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function errorFromResponse(result: TransportResult, nowMs: number): WalletApiError {
  let parsed: unknown;
  try {
    parsed = result.text === '' ? undefined : JSON.parse(result.text);
  } catch {
    parsed = undefined;
  }
  const body = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
  const error = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;
  const serverCode = typeof error?.code === 'string' ? error.code : null;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${result.status} without an API error body`;
  const details =
    typeof error?.details === 'object' && error.details !== null && !Array.isArray(error.details)
      ? (error.details as Record<string, unknown>)
      : undefined;
  const bodyCorrelationId = typeof error?.correlationId === 'string' ? error.correlationId : null;
  return new WalletApiError({
    status: result.status,
    code: serverCode !== null && isKnownErrorCode(serverCode) ? serverCode : 'UNKNOWN_ERROR',
    serverCode,
    message,
    details,
    correlationId: bodyCorrelationId ?? result.correlationId,
    retryAfterSeconds: parseRetryAfter(result.headers.get('retry-after'), nowMs),
    idempotencyKey: result.idempotencyKey,
    attempts: result.attempts,
  });
}

/**
 * What may be tried again: a rate limit, a dependency outage (nothing was changed), a
 * concurrent attempt of the same idempotent request still running, and a decision on a case
 * whose hold the ledger has not confirmed yet (nothing was changed). Other errors would only
 * repeat themselves.
 */
function isRetryableError(error: WalletApiError): boolean {
  return (
    error.status === 503 ||
    error.status === 429 ||
    (error.status === 409 && (error.code === 'IDEMPOTENCY_REQUEST_IN_PROGRESS' || error.code === 'CASE_HOLD_IN_PROGRESS'))
  );
}

export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  /**
   * Sends one logical call, retrying when that cannot apply it twice: a GET, or a request the
   * server deduplicates by its Idempotency-Key. Every attempt is signed afresh.
   */
  async execute(request: PreparedRequest): Promise<TransportResult> {
    const { url, wirePath } = resolveUrl(this.settings.baseUrl, request.pathWithQuery);
    const repeatable = request.method === 'GET' || request.idempotencyKey !== null;
    for (let attempt = 1; ; attempt += 1) {
      const retriesLeft = repeatable && attempt <= request.maxRetries;
      let result: TransportResult;
      try {
        result = await this.attempt(url, wirePath, request, attempt);
      } catch (failure) {
        if (!(failure instanceof AttemptFailure)) throw failure;
        if (retriesLeft) {
          await sleep(this.backoffMs(attempt), request.signal);
          continue;
        }
        const what = failure.timedOut ? `timed out after ${request.timeoutMs} ms` : `failed: ${describeCause(failure.cause)}`;
        const outcome = repeatable
          ? ''
          : '; it was not retried because it carries no Idempotency-Key, and the server may or may not have applied it';
        throw new WalletNetworkError(`${request.method} ${wirePath} ${what} (attempt ${attempt})${outcome}`, {
          cause: failure.cause,
          timedOut: failure.timedOut,
          attempts: attempt,
          idempotencyKey: request.idempotencyKey,
        });
      }
      if (result.status >= 200 && result.status < 300) return result;
      const error = errorFromResponse(result, this.settings.clock.now().getTime());
      if (!retriesLeft || !isRetryableError(error)) throw error;
      const delayMs = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.backoffMs(attempt);
      // A wait longer than the cap is handed back to the caller, who can see retryAfterSeconds.
      if (delayMs > this.settings.maxRetryDelayMs) throw error;
      await sleep(delayMs, request.signal);
    }
  }

  /** Exponential, with jitter over the upper half so that clients retrying together spread out. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.settings.maxRetryDelayMs, this.settings.retryBaseDelayMs * 2 ** (attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  private async attempt(url: URL, wirePath: string, request: PreparedRequest, attempt: number): Promise<TransportResult> {
    request.signal?.throwIfAborted();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.settings.userAgent,
      ...credentialHeaders(
        this.settings.auth,
        {
          method: request.method,
          pathWithQuery: wirePath,
          body: request.body,
          idempotencyKey: request.idempotencyKey,
          actor: request.actor,
        },
        this.settings.clock,
      ),
    };
    if (request.contentType !== null) headers['content-type'] = request.contentType;
    if (request.correlationId !== null) headers['x-correlation-id'] = request.correlationId;

    const controller = new AbortController();
    const forwardAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', forwardAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, request.timeoutMs);
    try {
      const response = await this.settings.fetch(url, {
        method: request.method,
        headers,
        ...(request.body.length > 0 ? { body: request.body } : {}),
        signal: controller.signal,
        // A redirect would send the signed request to a path it was not signed for.
        redirect: 'manual',
      });
      // The body is read inside the timeout too: a stalled body is as dead as a stalled connect.
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        text,
        correlationId: response.headers.get('x-correlation-id'),
        idempotencyKey: request.idempotencyKey,
        attempts: attempt,
      };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new AttemptFailure(error, timedOut);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', forwardAbort);
    }
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
  }
  return String(cause);
}

export function defaultNonce(): string {
  return randomUUID();
}
