import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where tests find PostgreSQL and RabbitMQ: set by the global setup, read by every worker. */
export function testServerUrls(): { databaseUrl: string; amqpUrl: string; runId: string } {
  const databaseUrl = process.env.WALLET_TEST_DATABASE_URL;
  const amqpUrl = process.env.WALLET_TEST_AMQP_URL;
  const runId = process.env.WALLET_TEST_RUN_ID;
  if (!databaseUrl || !amqpUrl || !runId) throw new Error('test servers are not set up: run tests through jest (test/global-setup.ts)');
  return { databaseUrl, amqpUrl, runId };
}

export function uniqueName(label: string): string {
  const { runId } = testServerUrls();
  return `${runId}_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(3).toString('hex')}`;
}

export async function isReachable(url: string, defaultPort: number): Promise<boolean> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname, port: Number(parsed.port || defaultPort) });
    socket.setTimeout(1500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery(serverUrl: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** Where the global setup says each service's migrated template is: a JSON object, service to database name. */
const TEMPLATES_VARIABLE = 'WALLET_TEST_TEMPLATES';

export interface TestDatabaseOptions {
  /**
   * A copy of this service's migrated template (made once by the global setup) instead of an
   * empty database: a copy takes a fraction of the time the service's migrations take.
   */
  migratedFor?: string;
}

function templateOf(service: string): string {
  const templates = JSON.parse(process.env[TEMPLATES_VARIABLE] ?? '{}') as Record<string, string>;
  const template = templates[service];
  if (!template) throw new Error(`no migrated template database for ${service}: run tests through jest (test/global-setup.ts makes them)`);
  return template;
}

/** A fresh database of this run, empty or migrated (`migratedFor`); gone at the end of the run. */
export async function createTestDatabase(label: string, options: TestDatabaseOptions = {}): Promise<string> {
  const { databaseUrl } = testServerUrls();
  const name = uniqueName(label);
  const template = options.migratedFor === undefined ? '' : ` TEMPLATE "${templateOf(options.migratedFor)}"`;
  await adminQuery(databaseUrl, `CREATE DATABASE "${name}"${template}`);
  return withDatabase(databaseUrl, name);
}

/** Tells the workers which template database each service's migrated databases are copied from. */
export function publishTemplates(templates: Record<string, string>): void {
  process.env[TEMPLATES_VARIABLE] = JSON.stringify(templates);
}

/** A short hash of the files in `dirs` (names and contents) and of `extra`: what a template was built from. */
export function filesHash(dirs: readonly string[], extra = ''): string {
  const hash = createHash('sha256').update(extra);
  for (const dir of dirs) {
    for (const file of readdirSync(dir).sort()) {
      hash.update(`\0${file}\0`).update(readFileSync(path.join(dir, file)));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Makes the database `name` with `build` (given its URL) unless it exists already. It is built
 * under a name of its own and renamed when complete, so neither a build that failed half way nor
 * a run racing this one leaves a half-made template under `name`. `build` must close its
 * connections: a database is copied only when nobody is connected to it.
 */
export async function ensureTemplateDatabase(
  serverUrl: string,
  name: string,
  build: (url: string) => Promise<void>,
): Promise<'found' | 'built'> {
  const exists = async () => (await adminQuery(serverUrl, 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  if (await exists()) return 'found';
  const building = `${name.slice(0, 50)}_b${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${building}"`);
  try {
    await build(withDatabase(serverUrl, building));
    await adminQuery(serverUrl, `ALTER DATABASE "${building}" RENAME TO "${name}"`);
    return 'built';
  } catch (error) {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
    // Another run built it meanwhile: theirs is as good as this one.
    if ((error as { code?: string }).code === '42P04') return 'found';
    throw error;
  }
}

export async function dropRunDatabases(serverUrl: string, runId: string): Promise<void> {
  const found = await adminQuery(serverUrl, 'SELECT datname FROM pg_database WHERE datname LIKE $1', [`${runId}\\_%`]);
  await dropDatabases(
    serverUrl,
    (found.rows as Array<{ datname: string }>).map((row) => row.datname),
  );
}

/** A run's id: `wt`, when it started (milliseconds, base 36), four hex digits. */
const RUN_DATABASE = /^wt([0-9a-z]{8})[0-9a-f]{4}_/;

/** Of `names`, the databases of runs that started more than `maxAgeMs` before `now`. */
export function staleRunDatabases(names: readonly string[], now: number, maxAgeMs: number): string[] {
  return names.filter((name) => {
    const started = RUN_DATABASE.exec(name)?.[1];
    return started !== undefined && now - parseInt(started, 36) > maxAgeMs;
  });
}

/** Drops what runs started over `maxAgeMs` ago left: each run drops its own, unless it was killed first. */
export async function dropStaleRunDatabases(serverUrl: string, maxAgeMs: number): Promise<void> {
  const found = await adminQuery(serverUrl, "SELECT datname FROM pg_database WHERE datname LIKE 'wt%'");
  const names = (found.rows as Array<{ datname: string }>).map((row) => row.datname);
  await dropDatabases(serverUrl, staleRunDatabases(names, Date.now(), maxAgeMs));
}

async function dropDatabases(serverUrl: string, names: string[]): Promise<void> {
  // Each DROP DATABASE waits for a checkpoint (PostgreSQL 15), and drops waiting together share
  // one: a run's few hundred databases, sixteen at a time, take a third of the time one by one does.
  const pending = [...names];
  const dropNext = async (): Promise<void> => {
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, dropNext));
}

function managementBase(amqpUrl: string): { base: string; auth: string } {
  const parsed = new URL(amqpUrl);
  const base = process.env.TEST_AMQP_MANAGEMENT_URL ?? `http://${parsed.hostname}:15672`;
  const auth = Buffer.from(`${decodeURIComponent(parsed.username || 'guest')}:${decodeURIComponent(parsed.password || 'guest')}`).toString(
    'base64',
  );
  return { base, auth };
}

async function viaManagementApi(amqpUrl: string, method: 'PUT' | 'DELETE', path: string, body?: unknown): Promise<boolean> {
  const { base, auth } = managementBase(amqpUrl);
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(3000),
    });
    return response.ok || response.status === 404;
  } catch {
    return false;
  }
}

/**
 * A fresh vhost of this run, so consumers of different test files never take each other's
 * messages. Made through the management API when it answers, else with rabbitmqctl.
 */
export async function createTestVhost(label: string, options: { keptForTheRun?: boolean } = {}): Promise<string> {
  const { amqpUrl } = testServerUrls();
  const name = uniqueName(label);
  const user = decodeURIComponent(new URL(amqpUrl).username || 'guest');
  const made =
    (await viaManagementApi(amqpUrl, 'PUT', `/api/vhosts/${encodeURIComponent(name)}`)) &&
    (await viaManagementApi(amqpUrl, 'PUT', `/api/permissions/${encodeURIComponent(name)}/${encodeURIComponent(user)}`, {
      configure: '.*',
      write: '.*',
      read: '.*',
    }));
  if (!made) {
    await run('rabbitmqctl', ['add_vhost', name], { timeout: 60_000 });
    await run('rabbitmqctl', ['set_permissions', '-p', name, user, '.*', '.*', '.*'], { timeout: 60_000 });
  }
  // The test environment (test/environment.js) deletes it when this test file is done; one kept
  // for the run (a system several files share) is left to the global teardown.
  if (!options.keptForTheRun) (globalThis as { __walletTestVhosts?: string[] }).__walletTestVhosts?.push(name);
  const parsed = new URL(amqpUrl);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** Deletes a vhost of this run; one the broker is slow to stop is left for the global teardown. */
export async function deleteTestVhost(name: string): Promise<void> {
  await deleteVhost(testServerUrls().amqpUrl, name);
}

/**
 * Through the management API, else rabbitmqctl. RabbitMQ 3.10 can take its 10-minute shutdown
 * timeout to stop a vhost's message store: false when the vhost did not go within 30 s.
 */
async function deleteVhost(amqpUrl: string, name: string): Promise<boolean> {
  if (await viaManagementApi(amqpUrl, 'DELETE', `/api/vhosts/${encodeURIComponent(name)}`)) return true;
  return run('rabbitmqctl', ['delete_vhost', name], { timeout: 30_000 }).then(
    () => true,
    () => false,
  );
}

export async function dropRunVhosts(amqpUrl: string, runId: string): Promise<void> {
  let names: string[] = [];
  const { base, auth } = managementBase(amqpUrl);
  try {
    const response = await fetch(`${base}/api/vhosts`, { headers: { authorization: `Basic ${auth}` }, signal: AbortSignal.timeout(3000) });
    if (response.ok) names = ((await response.json()) as Array<{ name: string }>).map((vhost) => vhost.name);
  } catch {
    const listed = await run('rabbitmqctl', ['list_vhosts', '--quiet', '--no-table-headers']).catch(() => ({ stdout: '' }));
    names = listed.stdout.split('\n').map((line) => line.trim());
  }
  for (const name of names.filter((vhost) => vhost.startsWith(`${runId}_`))) {
    // One that does not go quickly is left (the next run's names never collide with it) rather
    // than holding the test run, and every later deletion, behind it.
    if (!(await deleteVhost(amqpUrl, name))) {
      console.warn(`test vhost ${name} was not deleted within 30 s; leaving it and the rest of this run's vhosts`);
      return;
    }
  }
}
