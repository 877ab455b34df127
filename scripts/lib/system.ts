import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ensureDatabase } from '@wallet/kit';
import { createTestVhost, dropRunVhosts } from '@wallet/kit/testing';
import type { FetchLike } from '@wallet/sdk';
import type { Pool } from 'undici';
import { onFreePorts } from './system-ports';

/**
 * The whole system as `npm start` runs it (scripts/start.ts, each service its own process), on
 * fresh databases and a fresh vhost named after one run: what the end-to-end benchmarks measure.
 */

const ROOT = path.resolve(__dirname, '../..');
export const SERVICES = ['gateway', 'identity', 'ledger', 'payments', 'treasury'] as const;

export function runDatabaseUrl(serverUrl: string, runId: string, service: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${runId}_${service}`;
  return url.toString();
}

/**
 * The SDK's transport over one undici Pool: the load generator shares the machine with the
 * system it measures, and the global fetch's web streams cost it about as much CPU per request
 * as the gateway spends.
 */
export function pooledFetch(pool: Pool): FetchLike {
  return async (url, init) => {
    const answer = await pool.request({
      path: `${url.pathname}${url.search}`,
      method: init.method as 'POST',
      headers: init.headers,
      body: init.body,
      signal: init.signal,
    });
    const text = await answer.body.text();
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const each of value) headers.append(name, each);
      else if (value !== undefined) headers.set(name, value);
    }
    return { status: answer.statusCode, headers, text: () => Promise.resolve(text) };
  };
}

/**
 * The machine's speed at the moment: milliseconds this process takes for a fixed amount of
 * hashing. A shared VM's speed drifts between runs; figures of two runs compare only when
 * their calibrations do.
 */
export function calibrationMs(): number {
  const block = Buffer.alloc(1 << 20, 7);
  const started = performance.now();
  for (let round = 0; round < 64; round += 1) createHash('sha256').update(block).digest();
  return performance.now() - started;
}

export function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function waitForReady(url: string, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error('the system exited while starting');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the system did not become ready within 90 s');
}

export interface RunningSystem {
  /** The gateway's public listener. */
  baseUrl: string;
  /** The environment the services run with (their databases, ports, vhost and secrets). */
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  databaseUrl(service: string): string;
  /** SIGTERM to scripts/start.ts, which stops the services; resolves once it exited. */
  stop(): Promise<void>;
  /**
   * SIGSTOP to scripts/start.ts and its services, SIGCONT to let them go on: a paired benchmark's
   * idle system then takes no CPU from the measured one. Its database backends and the broker stay
   * up; a pause must stay well under the broker's 60 s heartbeat.
   */
  pause(): void;
  resume(): void;
}

export interface SystemOptions {
  serverUrl: string;
  amqpServerUrl: string;
  runId: string;
  systemKey: string;
  logLevel: string;
  /** Set on top of the rest (secrets a benchmark needs to know, settings). */
  extraEnv?: NodeJS.ProcessEnv;
}

/** The gateway's rate limits off: benchmarks measure the money path, not the limits in front of it. */
export const RATE_LIMITS_OFF: Readonly<Record<string, string>> = Object.fromEntries(
  ['KEY', 'TENANT', 'IP'].map((bucket) => [`GATEWAY_RATE_LIMIT_${bucket}_PER_SECOND`, '0']),
);

/**
 * Creates the run's databases and vhost, starts the system on free ports with the rate limits
 * off (benchmarks measure the money path, not the limits in front of it) and waits until the
 * gateway is ready.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  process.env.WALLET_TEST_DATABASE_URL = options.serverUrl;
  process.env.WALLET_TEST_AMQP_URL = options.amqpServerUrl;
  process.env.WALLET_TEST_RUN_ID = options.runId;
  const env: NodeJS.ProcessEnv = { ...process.env, SYSTEM_API_KEY: options.systemKey, LOG_LEVEL: options.logLevel };
  for (const service of SERVICES) {
    const url = runDatabaseUrl(options.serverUrl, options.runId, service);
    await ensureDatabase(url);
    env[`${service.toUpperCase()}_DATABASE_URL`] = url;
  }
  env.AMQP_URL = await createTestVhost('bench');
  await onFreePorts(env);
  Object.assign(env, RATE_LIMITS_OFF, options.extraEnv ?? {});

  const baseUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    // A paused system takes the SIGTERM only once it runs again.
    if (child.pid !== undefined) signalProcessAndChildren(child.pid, 'SIGCONT');
    await exited;
  };
  try {
    await waitForReady(baseUrl, () => child.exitCode !== null);
  } catch (error) {
    await stop();
    throw error;
  }
  const signal = (name: 'SIGSTOP' | 'SIGCONT'): void => {
    if (child.pid !== undefined) signalProcessAndChildren(child.pid, name);
  };
  return {
    baseUrl,
    env,
    process: child,
    databaseUrl: (service) => runDatabaseUrl(options.serverUrl, options.runId, service),
    stop,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
  };
}

/**
 * /proc/<pid>/stat: the command name (between parentheses, and it may hold spaces or parentheses) and
 * the fields after it; fields[0] is stat's field 3 (the state), fields[1] field 4 (the parent's pid).
 */
export function procStat(pid: string | number): { comm: string; fields: string[] } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
}

/** The processes whose parent is `parentPid`, from /proc. */
export function childPids(parentPid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(procStat(entry).fields[1]) === parentPid) children.push(Number(entry));
    } catch {
      // the process ended while being read
    }
  }
  return children;
}

/** Sends a signal to a process and to the processes it started (scripts/start.ts and the services). */
export function signalProcessAndChildren(pid: number, signal: NodeJS.Signals): void {
  for (const each of [pid, ...childPids(pid)]) {
    try {
      process.kill(each, signal);
    } catch {
      // it ended meanwhile
    }
  }
}

/** Drops the run's databases and vhosts. */
export async function dropSystem(serverUrl: string, amqpServerUrl: string, runId: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  for (const service of SERVICES) await admin.query(`DROP DATABASE IF EXISTS "${runId}_${service}" WITH (FORCE)`);
  await admin.end();
  await dropRunVhosts(amqpServerUrl, runId);
}
