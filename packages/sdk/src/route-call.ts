import type { Actor } from './auth';
import type { ApiRoute, RouteInput, RouteResult } from './routes';

export interface RequestOptions {
  /** Reused by every retry of this call; generated when the route creates a financial record. */
  idempotencyKey?: string;
  /** Sent as X-Correlation-Id: 1-128 characters of `[A-Za-z0-9._:-]`. */
  correlationId?: string;
  /** Overrides the client's actor; `null` sends none. */
  actor?: Actor | null;
  timeoutMs?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  validateResponse?: boolean;
  /** Sees the status, correlation id and headers of every 2xx answer, before its body is checked. */
  onResponse?: (meta: ResponseMeta) => void;
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
