import { DASHBOARD_CSRF_COOKIE, DASHBOARD_CSRF_HEADER, type RouteContract, stringifyLossless } from '@wallet/contracts';
import type { z } from 'zod';
import { cookieValue } from './cookies';
import { ApiError, isKnownErrorCode } from './errors';
import { parseAnswerJson } from './json';

/**
 * The dashboard's one way to the API: same-origin fetch with the session cookie, the CSRF
 * cookie echoed on every state-changing request (the listener's double submit), answers read
 * losslessly, and every failure an ApiError with the correlation id.
 */
export interface ApiClientOptions {
  /** '' in the browser (same origin); a test server's origin in tests. */
  baseUrl?: string;
  /** The page's cookies as `document.cookie` gives them; the CSRF token is read per request, as the listener may rotate it. */
  readCookies: () => string;
  fetch?: typeof fetch;
}

export interface RawRequest {
  method: RouteContract['method'];
  /** Path with its query already in it. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, for a route's opted-in media type (a CSV statement). */
  text?: { content: string; mediaType: string };
  headers?: Record<string, string>;
}

type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name | keyof PathParams<Rest>]: string }
  : Record<never, string>;

type QueryInput<Route extends RouteContract> = Route['query'] extends z.ZodObject ? z.input<Route['query']> : undefined;
type BodyInput<Route extends RouteContract> = Route['body'] extends z.ZodType ? z.input<Route['body']> : undefined;
export type RouteOutput<Route extends RouteContract> = z.output<Route['success']['schema']>;

/** What a call of a route takes: its path's ids, its query and its body, each typed by the route's contract. */
export type CallInput<Route extends RouteContract> = (keyof PathParams<Route['path']> extends never
  ? { params?: undefined }
  : { params: PathParams<Route['path']> }) &
  (Route['query'] extends z.ZodObject ? { query?: QueryInput<Route> } : { query?: undefined }) &
  (Route['body'] extends z.ZodType ? { body: BodyInput<Route> } : { body?: undefined }) & { idempotencyKey?: string; signal?: AbortSignal };

/** `/v1/wallets/{id}` with `{ id: 'wl_1' }`: each id percent-encoded, a missing one is a programmer error. */
export function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path ${template} needs ${name}`);
    return encodeURIComponent(value);
  });
}

/** A query as the URL carries it: unset fields left out, every other value as text. */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function isErrorBody(
  value: unknown,
): value is { error: { code: string; message: string; details?: Record<string, unknown>; correlationId?: string } } {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

function errorFromAnswer(status: number, text: string, headerCorrelationId: string | null): ApiError {
  let body: unknown;
  try {
    body = text === '' ? undefined : parseAnswerJson(text);
  } catch {
    body = undefined;
  }
  if (!isErrorBody(body)) {
    return new ApiError({
      status,
      code: 'UNKNOWN_ERROR',
      message: `The server answered ${status} without an error the dashboard knows`,
      correlationId: headerCorrelationId,
    });
  }
  const { error } = body;
  return new ApiError({
    status,
    code: isKnownErrorCode(error.code) ? error.code : 'UNKNOWN_ERROR',
    message: typeof error.message === 'string' ? error.message : error.code,
    details: error.details,
    correlationId: typeof error.correlationId === 'string' ? error.correlationId : headerCorrelationId,
  });
}

/** What a call with an opted-in body takes: its path's ids, its query (checked by the caller), and the text in one of its media types. */
export type TextInput<Route extends RouteContract & { bodyOptIn: NonNullable<RouteContract['bodyOptIn']> }> = (keyof PathParams<
  Route['path']
> extends never
  ? { params?: undefined }
  : { params: PathParams<Route['path']> }) & {
  query?: Record<string, string>;
  text: string;
  mediaType: Route['bodyOptIn']['mediaTypes'][number];
  idempotencyKey?: string;
  signal?: AbortSignal;
};

/** A 2xx answer held to the route's success schema: anything else is no answer the dashboard can show. */
function checkedAnswer<Route extends RouteContract>(
  route: Route,
  answer: { status: number; body: unknown; correlationId: string | null },
): RouteOutput<Route> {
  const parsed = route.success.schema.safeParse(answer.body);
  if (!parsed.success) {
    throw new ApiError({
      status: answer.status,
      code: 'UNEXPECTED_RESPONSE',
      message: `The answer of ${route.method.toUpperCase()} ${route.path} does not match its contract`,
      correlationId: answer.correlationId,
    });
  }
  return parsed.data as RouteOutput<Route>;
}

/** The request a call of a route makes: its path's ids filled in, its query and body checked by the route's schemas. */
function routeRequest<Route extends RouteContract>(route: Route, input: CallInput<Route>): RawRequest & { signal?: AbortSignal } {
  const path = fillPath(route.path, input.params as Record<string, string> | undefined);
  const query = route.query && input.query !== undefined ? (route.query.parse(input.query) as Record<string, unknown>) : undefined;
  const body = route.body ? route.body.parse(input.body) : undefined;
  const headers: Record<string, string> = input.idempotencyKey ? { 'idempotency-key': input.idempotencyKey } : {};
  return { method: route.method, path: `${path}${queryString(query)}`, body, headers, signal: input.signal };
}

export function createApiClient(options: ApiClientOptions) {
  const baseUrl = options.baseUrl ?? '';
  const doFetch = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));

  /** Sends one request; resolves with the parsed answer of a 2xx, else rejects with an ApiError. */
  async function request(
    raw: RawRequest & { signal?: AbortSignal },
  ): Promise<{ status: number; body: unknown; text: string; correlationId: string | null }> {
    const headers: Record<string, string> = { accept: 'application/json', ...raw.headers };
    if (raw.method !== 'get') {
      const csrf = cookieValue(options.readCookies(), DASHBOARD_CSRF_COOKIE);
      if (csrf !== null) headers[DASHBOARD_CSRF_HEADER] = csrf;
    }
    let text: string | undefined;
    if (raw.body !== undefined) {
      headers['content-type'] = 'application/json';
      text = stringifyLossless(raw.body);
    } else if (raw.text !== undefined) {
      headers['content-type'] = raw.text.mediaType;
      text = raw.text.content;
    }
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${raw.path}`, {
        method: raw.method.toUpperCase(),
        headers,
        body: text,
        credentials: 'same-origin',
        signal: raw.signal,
      });
    } catch (cause) {
      if (raw.signal?.aborted) throw cause;
      throw new ApiError({ status: 0, code: 'NETWORK_ERROR', message: 'The dashboard could not reach the server', correlationId: null });
    }
    const correlationId = response.headers.get('x-correlation-id');
    const answer = await response.text();
    if (!response.ok) throw errorFromAnswer(response.status, answer, correlationId);
    return { status: response.status, body: answer === '' ? undefined : parseAnswerJson(answer), text: answer, correlationId };
  }

  /**
   * Calls a route of the contracts: the query and body are checked against the route's schemas
   * before anything is sent, and the answer against its success schema.
   */
  async function call<Route extends RouteContract>(route: Route, input: CallInput<Route>): Promise<RouteOutput<Route>> {
    return checkedAnswer(route, await request(routeRequest(route, input)));
  }

  /**
   * Calls a route whose answer is shown as the server wrote it (an event's JSON): the answer's
   * text as it came, beside its reading checked against the route's success schema.
   */
  async function callText<Route extends RouteContract>(
    route: Route,
    input: CallInput<Route>,
  ): Promise<{ value: RouteOutput<Route>; text: string }> {
    const answer = await request(routeRequest(route, input));
    return { value: checkedAnswer(route, answer), text: answer.text };
  }

  /**
   * Calls a route with a body of one of the media types it opts into (`bodyOptIn`) instead of
   * JSON: the text is sent as it is, with the CSRF header like any write. Such a body's query
   * has its own schema (not the route's), so the caller checks it first.
   */
  async function send<Route extends RouteContract & { bodyOptIn: NonNullable<RouteContract['bodyOptIn']> }>(
    route: Route,
    input: TextInput<Route>,
  ): Promise<RouteOutput<Route>> {
    const { mediaTypes, limitBytes } = route.bodyOptIn;
    if (!mediaTypes.includes(input.mediaType))
      throw new Error(`${route.method.toUpperCase()} ${route.path} takes no ${input.mediaType} body`);
    if (new TextEncoder().encode(input.text).byteLength > limitBytes)
      throw new Error(`${route.method.toUpperCase()} ${route.path} takes at most ${limitBytes} bytes`);
    const path = fillPath(route.path, input.params as Record<string, string> | undefined);
    const headers: Record<string, string> = input.idempotencyKey ? { 'idempotency-key': input.idempotencyKey } : {};
    const answer = await request({
      method: route.method,
      path: `${path}${queryString(input.query)}`,
      text: { content: input.text, mediaType: input.mediaType },
      headers,
      signal: input.signal,
    });
    return checkedAnswer(route, answer);
  }

  return { request, call, callText, send };
}

export type ApiClient = ReturnType<typeof createApiClient>;
