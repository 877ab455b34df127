import pg from 'pg';

/**
 * What PostgreSQL did for one system's load, from its cumulative statistics: the WAL it wrote,
 * the pages its databases found in shared buffers or had to read in, and the dirty pages a
 * backend had to write out itself to make room. Only one system is loaded at a time, so the
 * server-wide counters (WAL, checkpoints, backend writes) are that system's, with what the
 * system loaded before it still does after its load (bench:scale alternates which goes first).
 */
export interface ServerCounters {
  walBytes: number;
  blocksRead: number;
  blocksHit: number;
  backendWrites: number;
  checkpoints: number;
}

const COUNTERS_SQL = `
  SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal_bytes,
         (SELECT COALESCE(sum(blks_read), 0)::float8 FROM pg_stat_database WHERE starts_with(datname, $1)) AS blocks_read,
         (SELECT COALESCE(sum(blks_hit), 0)::float8 FROM pg_stat_database WHERE starts_with(datname, $1)) AS blocks_hit,
         buffers_backend::float8 AS backend_writes,
         (checkpoints_timed + checkpoints_req)::float8 AS checkpoints
    FROM pg_stat_bgwriter`;

/** One statement's first row, on a connection of its own. */
async function firstRow<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const row = (await client.query<T>(sql, params)).rows[0];
    if (!row) throw new Error(`no row from ${sql.trim().split('\n', 1)[0]}`);
    return row;
  } finally {
    await client.end();
  }
}

/** The counters now; `runId` names the system's databases (`<runId>_<service>`). */
export async function serverCounters(serverUrl: string, runId: string): Promise<ServerCounters> {
  // Statistics are flushed by each backend at most once a second; a snapshot taken now sees what has been flushed.
  const row = await firstRow<{ wal_bytes: number; blocks_read: number; blocks_hit: number; backend_writes: number; checkpoints: number }>(
    serverUrl,
    COUNTERS_SQL,
    [`${runId}_`],
  );
  return {
    walBytes: row.wal_bytes,
    blocksRead: row.blocks_read,
    blocksHit: row.blocks_hit,
    backendWrites: row.backend_writes,
    checkpoints: row.checkpoints,
  };
}

/** Per transfer between two snapshots, checkpoints as a count. */
export function perTransfer(before: ServerCounters, after: ServerCounters, transfers: number): ServerCounters {
  const each = (key: keyof ServerCounters): number => (after[key] - before[key]) / Math.max(1, transfers);
  return {
    walBytes: each('walBytes'),
    blocksRead: each('blocksRead'),
    blocksHit: each('blocksHit'),
    backendWrites: each('backendWrites'),
    checkpoints: after.checkpoints - before.checkpoints,
  };
}

/** Rows a transfer adds to tables kept for a window, not for ever: what a system's earlier load left in them weighs on its next. */
export interface WindowedRows {
  idempotencyKeys: number;
  requestLogs: number;
  nonces: number;
}

export async function windowedRows(databaseUrl: (service: string) => string): Promise<WindowedRows> {
  const payments = await firstRow<{ keys: number }>(databaseUrl('payments'), 'SELECT count(*)::float8 AS keys FROM idempotency_keys');
  const gateway = await firstRow<{ logs: number; nonces: number }>(
    databaseUrl('gateway'),
    'SELECT (SELECT count(*) FROM request_logs)::float8 AS logs, (SELECT count(*) FROM request_nonces)::float8 AS nonces',
  );
  return { idempotencyKeys: payments.keys, requestLogs: gateway.logs, nonces: gateway.nonces };
}

export const describeWindowedRows = (rows: WindowedRows): string =>
  `${rows.idempotencyKeys.toLocaleString('en-US')} idempotency keys, ${rows.requestLogs.toLocaleString('en-US')} request logs, ${rows.nonces.toLocaleString('en-US')} nonces`;
