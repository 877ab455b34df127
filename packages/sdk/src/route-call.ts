import type { Actor } from './auth';
import type { ApiRoute, RouteInput, RouteResult } from './routes';

export interface RequestOptions {
  /** Reused by every retry of this call; generated when the route creates a financial record. */
  idempotencyKey?: string | undefined;
  /** Sent as X-Correlation-Id: 1-128 characters of `[A-Za-z0-9._:-]`. */
  correlationId?: string | undefined;
  /** Overrides the client's actor; `null` sends none. */
  actor?: Actor | null | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  signal?: AbortSignal | undefined;
  validateResponse?: boolean | undefined;
  /** Sees the status, correlation id and headers of every 2xx answer, before its body is checked. */
  onResponse?: ((meta: ResponseMeta) => void) | undefined;
}

export interface ResponseMeta {
  status: number;
  /** The X-Correlation-Id the server answered with: quote it when reporting a problem. */
  correlationId: string | null;
  idempotencyKey: string | null;
  attempts: number;
  headers: Headers;
}

export type CallArgs<Route extends ApiRoute> =
  object extends RouteInput<Route>
    ? [input?: RouteInput<Route>, options?: RequestOptions]
    : [input: RouteInput<Route>, options?: RequestOptions];

/** What the namespaces need of a client: calling a route. */
export interface RouteCaller {
  call<Route extends ApiRoute>(route: Route, ...args: CallArgs<Route>): Promise<RouteResult<Route>>;
}
