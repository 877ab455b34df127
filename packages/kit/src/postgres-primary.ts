import pg from 'pg';
import { DependencyUnavailableError } from './dependency-errors';

/**
 * node-postgres connects to one host. A database URL in libpq's multi-host form
 * (`postgres://user@db1:5432,db2:5432/wallet_ledger`) names a primary and its standbys; which one
 * is the primary changes when pg_auto_failover promotes a standby. `PrimaryResolver` asks the
 * listed hosts in turn and keeps the one that is not in recovery, as libpq's
 * `target_session_attrs=read-write` does, and asks again in the background once its answer is
 * older than a second while the pool is in use: after a failover the pool drops its connections
 * to the old primary and opens the next ones to the new.
 */

export interface DatabaseHost {
  host: string;
  port: number;
}

const MULTI_HOST_URL = /^(postgres(?:ql)?:\/\/)([^@/]*@)?([^/?#]*)(.*)$/;
const DEFAULT_PORT = 5432;
const PROBE_TIMEOUT_MS = 3_000;
const RECHECK_AFTER_MS = 1_000;

/** The hosts a database URL names: one, or several in libpq's multi-host form. */
export function databaseHosts(url: string): DatabaseHost[] {
  const match = MULTI_HOST_URL.exec(url);
  if (!match) return [];
  return (match[3] ?? '')
    .split(',')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [host, port] = entry.startsWith('[') ? [entry.slice(0, entry.indexOf(']') + 1), entry.split(']:')[1]] : entry.split(':');
      return { host: host ?? '', port: port ? Number(port) : DEFAULT_PORT };
    });
}

/** `url` with its hosts replaced by `host`: a single-host URL node-postgres reads. */
export function urlForHost(url: string, host: DatabaseHost): string {
  const match = MULTI_HOST_URL.exec(url);
  if (!match) throw new Error('not a PostgreSQL URL');
  return `${match[1]}${match[2] ?? ''}${host.host}:${host.port}${match[4] ?? ''}`;
}

/** `url` naming database `name` instead of its own; the hosts, one or several, and the query stay. */
export function urlForDatabase(url: string, name: string): string {
  const match = MULTI_HOST_URL.exec(url);
  if (!match) throw new Error('not a PostgreSQL URL');
  const rest = match[4] ?? '';
  const query = rest.search(/[?#]/);
  return `${match[1]}${match[2] ?? ''}${match[3]}/${name}${query === -1 ? '' : rest.slice(query)}`;
}

/** The database a URL names (its path), or undefined when it names none. */
export function databaseName(url: string): string | undefined {
  const path = (MULTI_HOST_URL.exec(url)?.[4] ?? '').replace(/[?#].*$/, '').replace(/^\//, '');
  return path === '' ? undefined : decodeURIComponent(path);
}

/** No listed host is a primary (mid-failover, or all down): the database is unavailable, a 503, not a bug. */
export class NoPrimaryError extends DependencyUnavailableError {
  constructor(
    hosts: readonly DatabaseHost[],
    readonly causes: string[],
  ) {
    super('database', `no primary among ${hosts.map((each) => `${each.host}:${each.port}`).join(', ')}: ${causes.join('; ')}`);
    this.name = 'NoPrimaryError';
  }
}

export class PrimaryResolver {
  private readonly hosts: DatabaseHost[];
  private primary: DatabaseHost | undefined;
  private resolvedAt = 0;
  private resolving: Promise<DatabaseHost> | undefined;

  constructor(private readonly url: string) {
    this.hosts = databaseHosts(url);
    if (this.hosts.length === 0) throw new Error('a database URL names no host');
  }

  /** True once the last answer is old enough to ask again. */
  get stale(): boolean {
    return Date.now() - this.resolvedAt >= RECHECK_AFTER_MS;
  }

  /** The single-host URL of the current primary, asked again when the last answer is stale. */
  async primaryUrl(): Promise<string> {
    if (!this.primary || this.stale) await this.ask();
    return urlForHost(this.url, this.primary as DatabaseHost);
  }

  /**
   * Whether the primary is known to be another host than `primaryUrl`'s (or none). A stale answer is asked again in the
   * background meanwhile, never waited for: a pool asks this on every checkout, and its connections to a primary that
   * still is one must live on (each new one costs a server process and its prepared statements).
   */
  changedFrom(primaryUrl: string): boolean {
    // Its failure is the next checkout's: no primary is known then, and primaryUrl asks again.
    if (this.stale) this.ask().catch(() => undefined);
    return this.primary === undefined || urlForHost(this.url, this.primary) !== primaryUrl;
  }

  /** The hosts asked once at a time: callers meanwhile share the answer in flight. */
  private ask(): Promise<DatabaseHost> {
    this.resolving ??= this.resolve().finally(() => (this.resolving = undefined));
    return this.resolving;
  }

  /** The last known primary first: after a failover it is usually down, and the next host answers. */
  private async resolve(): Promise<DatabaseHost> {
    const order = this.primary ? [this.primary, ...this.hosts.filter((each) => each !== this.primary)] : this.hosts;
    const causes: string[] = [];
    for (const host of order) {
      const standby = await inRecovery(urlForHost(this.url, host)).catch((error: unknown) => {
        causes.push(`${host.host}:${host.port} ${(error as Error).message}`);
        return undefined;
      });
      if (standby === false) {
        this.primary = host;
        this.resolvedAt = Date.now();
        return host;
      }
      if (standby) causes.push(`${host.host}:${host.port} is a standby`);
    }
    this.primary = undefined;
    throw new NoPrimaryError(this.hosts, causes);
  }
}

/** `url` itself when it names one host, else the current primary's single-host URL (asked once). */
export function primaryUrlOf(url: string): Promise<string> {
  return databaseHosts(url).length > 1 ? new PrimaryResolver(url).primaryUrl() : Promise.resolve(url);
}

async function inRecovery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    return rows[0]?.standby !== false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
