import http from 'node:http';
import type { AddressInfo } from 'node:net';
import amqp from 'amqplib';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { waitFor } from '@wallet/kit/testing';
import { startSecuritySystem } from '../security/in-process-system';
import type { FuzzRequest, FuzzWorld } from './generators';
import type { Answer } from './properties';
import { serverErrorOf } from './server-errors';
import { buildWorld } from './world';

/**
 * The whole system in-process on fresh databases and a fresh vhost (the security tests' harness),
 * a world of real resources in three tenants and both environments to aim requests at, and a
 * cheap fingerprint of every table that holds business state.
 */

const DASHBOARD_URL = 'http://dashboard.fuzz';

/** Invite emails, for the tokens that POST /v1/auth/accept-invite takes. */
async function startInviteInbox(tokens: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks)
          .toString('utf8')
          .replace(/=\r?\n/g, '');
        for (const match of text.matchAll(/accept-invite\?token=3D([A-Za-z0-9_-]{43})|accept-invite\?token=([A-Za-z0-9_-]{43})/g))
          tokens.push((match[1] ?? match[2]) as string);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}

/**
 * Rates high enough that the fuzz reaches the handlers; the limiter still runs on every request.
 * No payout or withdrawal delivery and no scheduled reconciliation or table maintenance: nothing changes state
 * on its own between a request and the snapshot after it.
 */
const FUZZ_ENV: NodeJS.ProcessEnv = {
  GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '1000000',
  GATEWAY_RATE_LIMIT_KEY_BURST: '1000000',
  GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '1000000',
  GATEWAY_RATE_LIMIT_TENANT_BURST: '1000000',
  GATEWAY_RATE_LIMIT_IP_PER_SECOND: '1000000',
  GATEWAY_RATE_LIMIT_IP_BURST: '1000000',
  PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '0',
  TREASURY_WITHDRAWAL_RAIL_INTERVAL_MS: '0',
  // Runs the schedule records, for GET /v1/system/reconciliation/runs/{id}; besides them they only advance the untracked checkpoints and marks.
  PAYMENTS_RECONCILIATION_INTERVAL_MS: '5000',
  TABLE_MAINTENANCE_INTERVAL_MS: '0',
  // Errors only, into the capture the test installs: the cause of each 500.
  LOG_LEVEL: 'error',
};

// ---- state fingerprints ---------------------------------------------------------------------

/**
 * Tables left out of the fingerprint, each because it changes on refused requests by design:
 * the gateway's request logs and their daily counts, nonces and rate buckets, the idempotency
 * records that remember refusals too, the count of failed logins per login address (a refused
 * login is what it counts), migrations, the analytics read models (fed by events,
 * checked against the journal elsewhere), reconciliation runs (a GET records one) and the
 * incremental reconciliation's checkpoints and marks, which every run advances: a GET's, or the
 * schedule's, which may fall between a refusal's two fingerprints.
 */
const UNTRACKED =
  /^(knex_migrations.*|idempotency.*|login_throttles|request_logs|request_log_days|request_nonces|rate_limit.*|analytics_.*|reconciliation_runs|reconciliation_marks|reconciliation_(account|scope)_checkpoints)$/;
/** Money: never touched by a refused request, even one the API records. */
export const MONEY_TABLES: ReadonlySet<string> = new Set(['ledger.accounts', 'ledger.journal_entries', 'ledger.journal_lines']);

export interface TableState {
  rows: number;
  /** Sum of the rows' xmin: any insert, update or delete since changes it. */
  versions: string;
}
export type Snapshot = Map<string, TableState>;

export interface TableChange {
  table: string;
  rowsBefore: number;
  rowsAfter: number;
}

export function changesBetween(before: Snapshot, after: Snapshot): TableChange[] {
  const changes: TableChange[] = [];
  for (const [table, state] of after) {
    const previous = before.get(table);
    if (!previous || previous.rows !== state.rows || previous.versions !== state.versions)
      changes.push({ table, rowsBefore: previous?.rows ?? 0, rowsAfter: state.rows });
  }
  return changes;
}

interface TrackedDatabase {
  name: string;
  pool: pg.Pool;
  query: string;
}

async function trackDatabase(name: string, url: string): Promise<TrackedDatabase | null> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const tables = (
    await pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
  ).rows
    .map((row) => row.table_name)
    .filter((table) => !UNTRACKED.test(table));
  if (tables.length === 0) {
    await pool.end();
    return null;
  }
  const query = tables
    .map(
      (table) =>
        `SELECT '${name}.${table}' AS name, count(*)::int AS rows, coalesce(sum(xmin::text::bigint), 0)::text AS versions FROM "${table}"`,
    )
    .join(' UNION ALL ');
  return { name, pool, query };
}

/**
 * How long nothing may change before the system counts as settled: longer than the linger of the
 * ledger-events consumers (50 ms), during which delivered events wait in memory where no table or
 * queue shows them. (Outbox rows wait for their delete in the table, seen by the empty-outbox test.)
 */
const QUIET_MS = 120;

// ---- the broker: messages still to be consumed ---------------------------------------------------

interface QueueWatch {
  backlog(): Promise<number>;
  close(): Promise<void>;
}

async function watchQueues(amqpUrl: string): Promise<QueueWatch> {
  const parsed = new URL(amqpUrl);
  const vhost = decodeURIComponent(parsed.pathname.slice(1));
  const base = process.env.TEST_AMQP_MANAGEMENT_URL ?? `http://${parsed.hostname}:15672`;
  const auth = Buffer.from(`${decodeURIComponent(parsed.username || 'guest')}:${decodeURIComponent(parsed.password || 'guest')}`).toString(
    'base64',
  );
  let names: string[] = [];
  try {
    const response = await fetch(`${base}/api/queues/${encodeURIComponent(vhost)}?columns=name,exclusive`, {
      headers: { authorization: `Basic ${auth}` },
      signal: AbortSignal.timeout(5000),
    });
    if (response.ok)
      names = ((await response.json()) as Array<{ name: string; exclusive: boolean }>)
        .filter((queue) => !queue.exclusive && !queue.name.startsWith('amq.'))
        .map((queue) => queue.name);
  } catch {
    // Without the management API the settling rests on outboxes and table fingerprints alone.
  }
  const connection = await amqp.connect(amqpUrl);
  let channel = await connection.createChannel();
  return {
    async backlog() {
      let total = 0;
      for (const name of names) {
        try {
          total += (await channel.checkQueue(name)).messageCount;
        } catch {
          names = names.filter((each) => each !== name);
          channel = await connection.createChannel();
        }
      }
      return total;
    },
    close: async () => {
      await connection.close().catch(() => undefined);
    },
  };
}

// ---- the system --------------------------------------------------------------------------------

export interface FuzzSystem {
  world: FuzzWorld;
  send(request: FuzzRequest): Promise<Answer>;
  snapshot(): Promise<Snapshot>;
  /** Waits until no outbox holds a message, no queue a delivery, and two fingerprints in a row agree. */
  settle(): Promise<{ snapshot: Snapshot; settled: boolean }>;
  close(): Promise<void>;
}

function sendRaw(
  baseUrl: string,
  agent: http.Agent,
  request: { method: string; pathWithQuery: string; headers: Record<string, string>; body: Buffer | null },
): Promise<Answer> {
  const target = new URL(baseUrl);
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== null) headers['content-length'] = String(request.body.length);
    let outgoing: http.ClientRequest;
    try {
      outgoing = http.request({
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.pathWithQuery,
        headers,
        agent,
        timeout: 60_000,
      });
    } catch (error) {
      resolve({ status: 0, headers: {}, bodyText: `the client could not send it: ${(error as Error).message}` });
      return;
    }
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, bodyText: Buffer.concat(chunks).toString('utf8') }),
      );
      incoming.on('error', (error) => resolve({ status: 0, headers: {}, bodyText: `the answer broke off: ${error.message}` }));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 60 s')));
    outgoing.on('error', (error) => resolve({ status: 0, headers: {}, bodyText: `no answer: ${error.message}` }));
    outgoing.end(request.body ?? undefined);
  });
}

export async function startFuzzSystem(label: string): Promise<FuzzSystem> {
  const inviteTokens: string[] = [];
  const inbox = await startInviteInbox(inviteTokens);
  const system = await startSecuritySystem(label, { ...FUZZ_ENV, SMTP_URL: inbox.url, DASHBOARD_URL }).catch(async (error: unknown) => {
    await inbox.close();
    throw error;
  });
  const tracked: TrackedDatabase[] = [];
  let queues: QueueWatch | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const close = async () => {
    agent.destroy();
    await queues?.close();
    for (const database of tracked) await database.pool.end().catch(() => undefined);
    await system.close();
    await inbox.close();
  };
  try {
    const world = await buildWorld(system, inviteTokens);
    for (const service of ['identity', 'ledger', 'payments', 'treasury']) {
      const database = await trackDatabase(service, system.env[`${service.toUpperCase()}_DATABASE_URL`] as string);
      if (database) tracked.push(database);
    }
    queues = await watchQueues(system.env.AMQP_URL as string);
    const watch = queues;

    const snapshot = async (): Promise<Snapshot> => {
      const results = await Promise.all(
        tracked.map((database) => database.pool.query<{ name: string; rows: number; versions: string }>(database.query)),
      );
      return new Map(
        results.flatMap((result) => result.rows.map((row) => [row.name, { rows: row.rows, versions: row.versions }] as const)),
      );
    };
    const databaseNames = ['identity', 'ledger', 'payments', 'treasury'].map((service) =>
      new URL(system.env[`${service.toUpperCase()}_DATABASE_URL`] as string).pathname.slice(1),
    );
    const monitor = tracked[0] as TrackedDatabase;
    /** A consumer inside a transaction is work not yet visible in any table. */
    const busyBackends = async () =>
      (
        await monitor.pool.query<{ busy: number }>(
          "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = ANY($1) AND state <> 'idle' AND pid <> pg_backend_pid()",
          [databaseNames],
        )
      ).rows[0]?.busy ?? 0;
    /** A full reconciliation run works in the background, pausing between batches: not settled while one is queued or running. */
    const fullRunsUnderWay = async () => {
      const withRuns = tracked.filter((database) => database.name === 'ledger' || database.name === 'payments');
      const counts = await Promise.all(
        withRuns.map((database) =>
          database.pool.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM reconciliation_full_runs WHERE state IN ('queued', 'running')",
          ),
        ),
      );
      return counts.reduce((sum, result) => sum + (result.rows[0]?.n ?? 0), 0);
    };
    const outboxEmpty = (state: Snapshot) => [...state].every(([table, { rows }]) => !table.endsWith('.outbox') || rows === 0);
    const settle = async () => {
      let previous: Snapshot | undefined;
      let latest: Snapshot | undefined;
      let quietSince = Date.now();
      try {
        const settled = await waitFor(
          async () => {
            latest = await snapshot();
            const quiet =
              outboxEmpty(latest) && (await watch.backlog()) === 0 && (await busyBackends()) === 0 && (await fullRunsUnderWay()) === 0;
            if (!quiet || previous === undefined || changesBetween(previous, latest).length > 0) {
              previous = quiet ? latest : undefined;
              quietSince = Date.now();
              return undefined;
            }
            return Date.now() - quietSince >= QUIET_MS ? latest : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 40, what: 'the system to settle' },
        );
        return { snapshot: settled, settled: true };
      } catch {
        return { snapshot: latest ?? (await snapshot()), settled: false };
      }
    };
    const send = async (request: FuzzRequest): Promise<Answer> => {
      const baseUrl = request.listener === 'admin' ? system.adminUrl : system.publicUrl;
      const pathWithQuery = request.query === '' ? request.path : `${request.path}?${request.query}`;
      const answer = await sendRaw(baseUrl, agent, { method: request.method, pathWithQuery, headers: request.headers, body: request.body });
      const serverError = answer.status >= 500 ? serverErrorOf(request.headers['x-correlation-id'] ?? '') : undefined;
      return serverError ? { ...answer, serverError } : answer;
    };
    return { world, send, snapshot, settle, close };
  } catch (error) {
    await close();
    throw error;
  }
}
