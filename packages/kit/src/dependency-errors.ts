import { AppError, RetryLaterError } from './errors';

/** Seconds a 503 asks the client to wait: about what a PostgreSQL or RabbitMQ restart takes. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/** A dependency this process needs right now (the broker, a database) cannot be reached. */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: 'database' | 'broker',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyUnavailableError';
  }
}

/**
 * SQLSTATEs of a server that is not there for this connection: class 08 (connection exception),
 * 57P01-57P03 (shut down by the administrator, crashed, not yet accepting connections or
 * shutting down), 57P05 (idle session timeout), 53300 (no connection slot free) and 25006 (a
 * write on a standby: the connection reached a node that is no longer the primary, mid-failover,
 * and the pool moves to the new one once its resolver has seen the change).
 */
const CONNECTION_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '57P05', '53300', '25006']);

function isConnectionSqlState(code: string): boolean {
  return code.startsWith('08') || CONNECTION_SQLSTATES.has(code);
}

/** Socket errors of a peer that is down, restarting or unreachable for a moment. */
const SOCKET_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** What node-postgres says, without a code, when its connection went away under a query. */
const DATABASE_CONNECTION_LOST: readonly string[] = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
];

/** What amqplib says of a publish or an operation on a channel whose connection went away. */
const BROKER_CONNECTION_LOST: readonly string[] = ['Channel closed', 'channel closed', 'Channel ended, no reply will be forthcoming'];

/** knex puts the statement in front of node-postgres' message (`<sql> - <message>`): matched at the end. */
function saysOneOf(message: string, phrases: readonly string[]): boolean {
  return phrases.some((phrase) => message === phrase || message.endsWith(` - ${phrase}`));
}

export type Dependency = DependencyUnavailableError['dependency'] | 'network';

/** What the classification reads of an error. Not `instanceof Error`: errors made by node's own modules come from another realm under a test runner's sandbox. */
interface ErrorLike {
  name?: unknown;
  message: string;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

function ownDependencyOf(error: ErrorLike): Dependency | null {
  if (error instanceof DependencyUnavailableError) return error.dependency;
  const { code } = error;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && isConnectionSqlState(code)) return 'database';
  // knex gave up waiting for a pooled connection: the server did not let one open in time.
  if (error.name === 'KnexTimeoutError' && error.message.startsWith('Knex: Timeout acquiring a connection')) return 'database';
  if (saysOneOf(error.message, DATABASE_CONNECTION_LOST)) return 'database';
  if (saysOneOf(error.message, BROKER_CONNECTION_LOST)) return 'broker';
  // A socket error alone does not say whose socket it was.
  if (typeof code === 'string' && SOCKET_ERROR_CODES.has(code)) return 'network';
  return null;
}

/** The dependency `error` says is unavailable, looking through its causes; null for any other error. */
export function unavailableDependencyOf(error: unknown, depth = 0): Dependency | null {
  if (!isErrorLike(error) || depth > 5) return null;
  const own = ownDependencyOf(error);
  if (own) return own;
  const nested: unknown[] = [error.cause, ...(Array.isArray(error.errors) ? (error.errors as unknown[]) : [])];
  for (const inner of nested) {
    const found = unavailableDependencyOf(inner, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Whether `error` means a dependency is down or unreachable for the moment (not a bug, not bad input). */
export function isDependencyUnavailable(error: unknown): boolean {
  return unavailableDependencyOf(error) !== null;
}

/** SQLSTATEs a transaction fails with when it lost a race, not because of what it did: retrying it is the cure. */
const RETRYABLE_TRANSACTION_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']);

/**
 * Whether work that failed with `error` would succeed if simply run again later: a dependency
 * unavailable (here, or as a peer's 503), or a serialization failure or deadlock. A message
 * that failed so is not poison.
 */
export function isTransientFailure(error: unknown): boolean {
  if (isDependencyUnavailable(error)) return true;
  if (error instanceof AppError) return error.code === 'SERVICE_UNAVAILABLE';
  return isErrorLike(error) && typeof error.code === 'string' && RETRYABLE_TRANSACTION_SQLSTATES.has(error.code);
}

/** The answer to a request that met an unavailable dependency (503, retry shortly); null for any other error. */
export function dependencyUnavailableAnswer(error: unknown): AppError | null {
  const dependency = unavailableDependencyOf(error);
  if (!dependency) return null;
  const what = dependency === 'network' ? 'A service this request needs' : `The ${dependency} this request needs`;
  return new RetryLaterError(
    'SERVICE_UNAVAILABLE',
    `${what} is unavailable for the moment; retry shortly`,
    DEPENDENCY_RETRY_AFTER_SECONDS,
    { dependency },
  );
}
