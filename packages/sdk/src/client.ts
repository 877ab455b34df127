import { randomUUID } from 'node:crypto';
import { correlationIdSchema, stringifyLossless } from '@wallet/contracts';
import type { z } from 'zod';
import { type Actor, assertValidAuth, type WalletAuth } from './auth';
import { WalletRequestValidationError, WalletResponseValidationError } from './errors';
import { fillPathTemplate, type QueryValue, serializeQuery } from './paths';
import { type ApiRoute, createsFinancialRecord, effectiveSchemas, type RouteInput, type RouteResult } from './routes';
import { buildNamespaces, type Namespaces } from './namespaces';
import type { CallArgs, RequestOptions, ResponseMeta } from './route-call';
import { defaultNonce, type FetchLike, Transport } from './transport';

export type { RequestOptions, ResponseMeta } from './route-call';

export const SDK_VERSION = '0.1.0';

export interface WalletClientOptions {
  /** The gateway, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Left out only for the routes that need no credential (login, accepting an invite). */
  auth?: WalletAuth | undefined;
  /** Default actor context of every call; a call may name another, or `null` for none. */
  actor?: Actor | undefined;
  /** Per attempt, connect to last body byte. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, for requests that are safe to repeat. Default 2. */
  maxRetries?: number | undefined;
  /** Default: the global fetch. Any FetchLike will do (see transport.ts). */
  fetch?: FetchLike | undefined;
  /** Check success bodies against the route's schema, so that drift fails loudly. Default true. */
  validateResponses?: boolean | undefined;
  /** First backoff step; later ones double. Default 250. */
  retryBaseDelayMs?: number | undefined;
  /** Cap of the backoff, and the longest Retry-After waited for. Default 30 000. */
  maxRetryDelayMs?: number | undefined;
  /** Clock of the signing timestamp. Default: the system clock. */
  now?: (() => Date) | undefined;
  /** Nonce of each signed attempt: a UUID or 128 random bits (docs/decisions/signing.md). Default: a random UUID. */
  nonce?: (() => string) | undefined;
  /** Idempotency keys generated for calls that create financial records. Default: a random UUID. */
  generateIdempotencyKey?: (() => string) | undefined;
  userAgent?: string | undefined;
}

export interface WalletResponse<Data> extends ResponseMeta {
  data: Data;
}

export type RawMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A request outside the typed routes. Nothing is validated either way. */
export interface RawRequest {
  method: RawMethod;
  /** Path, and optionally a query, sent and signed as written (after URL parsing). */
  path: string;
  /** Appended to `path` after the query it may already have. */
  query?: Record<string, QueryValue> | undefined;
  /** Serialised as JSON. */
  body?: unknown;
  /** Sent byte for byte instead of `body`. */
  rawBody?: string | Uint8Array | undefined;
  /** Default `application/json` whenever there is a body. */
  contentType?: string | undefined;
}

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

function integerOption(name: string, value: number | undefined, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < minimum) throw new TypeError(`${name} must be an integer of at least ${minimum}`);
  return value;
}

function assertActor(actor: Actor | null): void {
  if (actor === null) return;
  if (typeof actor.type !== 'string' || actor.type === '' || typeof actor.id !== 'string' || actor.id === '') {
    throw new WalletRequestValidationError('An actor needs a non-empty type and id');
  }
}

function issuesMessage(what: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => `  ${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`);
  return `${what}:\n${lines.join('\n')}`;
}

/**
 * The client of the wallet platform's public API. Typed namespaces cover the routes of
 * packages/contracts; `call` takes any route contract, `request` anything at all.
 */
export class WalletClient implements Namespaces {
  readonly system: Namespaces['system'];
  readonly journal: Namespaces['journal'];
  readonly ledger: Namespaces['ledger'];
  readonly auditEvents: Namespaces['auditEvents'];
  readonly apiKeys: Namespaces['apiKeys'];
  readonly team: Namespaces['team'];
  readonly auth: Namespaces['auth'];
  readonly momoProviders: Namespaces['momoProviders'];
  readonly requestLogs: Namespaces['requestLogs'];
  readonly wallets: Namespaces['wallets'];
  readonly transfers: Namespaces['transfers'];
  readonly payouts: Namespaces['payouts'];
  readonly treasury: Namespaces['treasury'];
  readonly deposits: Namespaces['deposits'];
  readonly fees: Namespaces['fees'];
  readonly reconciliation: Namespaces['reconciliation'];
  readonly analytics: Namespaces['analytics'];
  readonly events: Namespaces['events'];
  readonly webhookEndpoints: Namespaces['webhookEndpoints'];
  readonly exports: Namespaces['exports'];

  private readonly options: WalletClientOptions;
  private readonly transport: Transport;
  private readonly defaults: { timeoutMs: number; maxRetries: number; validateResponses: boolean; actor: Actor | null };
  private readonly generateIdempotencyKey: () => string;

  constructor(options: WalletClientOptions) {
    let baseUrl: URL;
    try {
      baseUrl = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl is not a URL: ${options.baseUrl}`);
    }
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') throw new TypeError('baseUrl must be http or https');
    if (baseUrl.search !== '' || baseUrl.hash !== '') throw new TypeError('baseUrl cannot have a query or fragment');
    if (options.auth) assertValidAuth(options.auth);
    assertActor(options.actor ?? null);
    const fetchImplementation = options.fetch ?? globalThis.fetch;
    if (typeof fetchImplementation !== 'function') throw new TypeError('No fetch available: pass options.fetch');

    this.options = { ...options };
    this.defaults = {
      timeoutMs: integerOption('timeoutMs', options.timeoutMs, 30_000, 1),
      maxRetries: integerOption('maxRetries', options.maxRetries, 2, 0),
      validateResponses: options.validateResponses ?? true,
      actor: options.actor ?? null,
    };
    this.generateIdempotencyKey = options.generateIdempotencyKey ?? randomUUID;
    this.transport = new Transport({
      baseUrl,
      auth: options.auth ?? null,
      fetch: fetchImplementation,
      clock: { now: options.now ?? (() => new Date()), nonce: options.nonce ?? defaultNonce },
      userAgent: options.userAgent ?? `wallet-sdk-typescript/${SDK_VERSION}`,
      retryBaseDelayMs: integerOption('retryBaseDelayMs', options.retryBaseDelayMs, 250, 0),
      maxRetryDelayMs: integerOption('maxRetryDelayMs', options.maxRetryDelayMs, 30_000, 0),
    });

    const namespaces = buildNamespaces(this);
    this.system = namespaces.system;
    this.journal = namespaces.journal;
    this.ledger = namespaces.ledger;
    this.auditEvents = namespaces.auditEvents;
    this.apiKeys = namespaces.apiKeys;
    this.team = namespaces.team;
    this.auth = namespaces.auth;
    this.momoProviders = namespaces.momoProviders;
    this.requestLogs = namespaces.requestLogs;
    this.wallets = namespaces.wallets;
    this.transfers = namespaces.transfers;
    this.payouts = namespaces.payouts;
    this.treasury = namespaces.treasury;
    this.deposits = namespaces.deposits;
    this.fees = namespaces.fees;
    this.reconciliation = namespaces.reconciliation;
    this.analytics = namespaces.analytics;
    this.events = namespaces.events;
    this.webhookEndpoints = namespaces.webhookEndpoints;
    this.exports = namespaces.exports;
  }

  /** A client like this one with other options, e.g. the session that `auth.login` returned. */
  withOptions(overrides: Partial<WalletClientOptions>): WalletClient {
    return new WalletClient({ ...this.options, ...overrides });
  }

  withAuth(auth: WalletAuth): WalletClient {
    return this.withOptions({ auth });
  }

  /** Calls a route and returns its parsed body. */
  async call<Route extends ApiRoute>(route: Route, ...args: CallArgs<Route>): Promise<RouteResult<Route>> {
    return (await this.send(route, ...args)).data;
  }

  /** Calls a route and returns its parsed body with the status, correlation id and headers. */
  async send<Route extends ApiRoute>(route: Route, ...args: CallArgs<Route>): Promise<WalletResponse<RouteResult<Route>>> {
    const [input, options = {}] = args as [RouteInput<Route> | undefined, RequestOptions | undefined];
    const given = (input ?? {}) as { params?: Record<string, string>; query?: object; body?: unknown };
    const schemas = effectiveSchemas(route);
    const what = `${route.method.toUpperCase()} ${route.path}`;

    if (schemas.query && given.query !== undefined) {
      const checked = schemas.query.safeParse(given.query);
      if (!checked.success)
        throw new WalletRequestValidationError(issuesMessage(`Query of ${what} is invalid`, checked.error), checked.error.issues);
    }
    if (schemas.body) {
      const checked = schemas.body.safeParse(given.body);
      if (!checked.success)
        throw new WalletRequestValidationError(issuesMessage(`Body of ${what} is invalid`, checked.error), checked.error.issues);
    } else if (given.body !== undefined) {
      throw new WalletRequestValidationError(`${what} takes no body`);
    }

    const path = fillPathTemplate(route.path, given.params);
    const query = serializeQuery(given.query);
    const result = await this.dispatch(
      {
        method: route.method,
        path: query === '' ? path : `${path}?${query}`,
        ...(given.body === undefined ? {} : { body: given.body }),
      },
      route.path,
      options,
    );
    const validate = options.validateResponse ?? this.defaults.validateResponses;
    if (!validate) return result as WalletResponse<RouteResult<Route>>;
    const checked = schemas.success.schema.safeParse(result.data);
    if (!checked.success) {
      throw new WalletResponseValidationError(issuesMessage(`Response of ${what} does not match its contract`, checked.error), {
        status: result.status,
        correlationId: result.correlationId,
        issues: checked.error.issues,
        body: result.data,
      });
    }
    return { ...result, data: checked.data as RouteResult<Route> };
  }

  /**
   * Any request, untyped: the body comes back parsed but unchecked. Authentication, signing,
   * idempotency and retries work as for typed calls.
   */
  async request(request: RawRequest, options: RequestOptions = {}): Promise<WalletResponse<unknown>> {
    const query = serializeQuery(request.query);
    const path = query === '' ? request.path : `${request.path}${request.path.includes('?') ? '&' : '?'}${query}`;
    return this.dispatch({ ...request, path }, request.path, options);
  }

  private async dispatch(request: RawRequest, pathTemplate: string, options: RequestOptions): Promise<WalletResponse<unknown>> {
    const method = request.method.toUpperCase();
    if (options.correlationId !== undefined && !correlationIdSchema.safeParse(options.correlationId).success) {
      throw new WalletRequestValidationError('correlationId must be 1-128 characters of [A-Za-z0-9._:-]');
    }
    if (options.idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(options.idempotencyKey)) {
      throw new WalletRequestValidationError('idempotencyKey must be 1-255 visible ASCII characters');
    }
    const actor = options.actor === undefined ? this.defaults.actor : options.actor;
    assertActor(actor);

    let body: Buffer<ArrayBuffer>;
    if (request.rawBody !== undefined)
      body = typeof request.rawBody === 'string' ? Buffer.from(request.rawBody, 'utf8') : Buffer.from(request.rawBody);
    else if (request.body !== undefined) body = Buffer.from(stringifyLossless(request.body), 'utf8');
    else body = Buffer.alloc(0);
    if (method === 'GET' && body.length > 0) throw new WalletRequestValidationError('GET requests have no body');

    // Generated once per logical call, before the first attempt: every retry must carry it.
    const idempotencyKey = options.idempotencyKey ?? (createsFinancialRecord(method, pathTemplate) ? this.generateIdempotencyKey() : null);

    const result = await this.transport.execute({
      method,
      pathWithQuery: request.path,
      body,
      contentType: body.length > 0 ? (request.contentType ?? 'application/json') : null,
      idempotencyKey,
      actor,
      correlationId: options.correlationId ?? null,
      timeoutMs: integerOption('timeoutMs', options.timeoutMs, this.defaults.timeoutMs, 1),
      maxRetries: integerOption('maxRetries', options.maxRetries, this.defaults.maxRetries, 0),
      signal: options.signal,
    });

    let data: unknown;
    try {
      // An export answers CSV: its text is the result.
      if (result.headers.get('content-type')?.startsWith('text/csv')) data = result.text;
      else data = result.text === '' ? undefined : JSON.parse(result.text);
    } catch (error) {
      throw new WalletResponseValidationError(`Response of ${method} ${pathTemplate} is not JSON: ${(error as Error).message}`, {
        status: result.status,
        correlationId: result.correlationId,
        issues: [],
        body: result.text,
      });
    }
    const meta: ResponseMeta = {
      status: result.status,
      correlationId: result.correlationId,
      idempotencyKey: result.idempotencyKey,
      attempts: result.attempts,
      headers: result.headers,
    };
    options.onResponse?.(meta);
    return { ...meta, data };
  }
}
