import pg from 'pg';

/**
 * What PostgreSQL did for one system's load, from its cumulative statistics: the WAL it wrote,
 * the pages its databases found in shared buffers or had to read in, and the dirty pages a
 * backend had to write out itself to make room. Only one system is loaded at a time, so the
 * server-wide counters (WAL, checkpoints, backend writes) are that system's.
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

/** The counters now; `runId` names the system's databases (`<runId>_<service>`). */
export async function serverCounters(serverUrl: string, runId: string): Promise<ServerCounters> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    // Statistics are flushed by each backend at most once a second; a snapshot taken now sees what has been flushed.
    const { rows } = await client.query<{ wal_bytes: number; blocks_read: number; blocks_hit: number; backend_writes: number; checkpoints: number }>(COUNTERS_SQL, [`${runId}_`]);
    const row = rows[0];
    if (!row) throw new Error('pg_stat_bgwriter returned no row');
    return { walBytes: row.wal_bytes, blocksRead: row.blocks_read, blocksHit: row.blocks_hit, backendWrites: row.backend_writes, checkpoints: row.checkpoints };
  } finally {
    await client.end();
  }
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
