import { testServerUrls, uniqueName } from '@wallet/kit/testing';
import pg from 'pg';
import { describeWindowedRows, perTransfer, serverCounters, windowedRows } from '../../scripts/lib/server-counters';
import { runDatabaseUrl } from '../../scripts/lib/system';

/**
 * bench:scale's per-transfer costs (scripts/lib/server-counters.ts) from PostgreSQL's own
 * statistics: the WAL a load wrote, and the pages of its system's databases, not another's.
 */
const serverUrl = testServerUrls().databaseUrl;
// Named under the test run, which drops them at its end: a DROP DATABASE waits for a checkpoint,
// which in the middle of a run flushes every other test's writes.
const runId = uniqueName('sc');
const otherRunId = uniqueName('sc_other');
const databases = ['ledger', 'payments', 'gateway'].map((service) => `${runId}_${service}`);

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(() =>
  withClient(serverUrl, async (client) => {
    for (const database of databases) await client.query(`CREATE DATABASE "${database}"`);
  }),
);

it('counts the WAL and the pages a load of one system wrote and touched, per transfer', async () => {
  const before = await serverCounters(serverUrl, runId);
  const otherBefore = await serverCounters(serverUrl, otherRunId);
  await withClient(runDatabaseUrl(serverUrl, runId, 'ledger'), async (client) => {
    await client.query('CREATE TABLE lines (id bigint PRIMARY KEY, note text NOT NULL)');
    await client.query(`INSERT INTO lines SELECT n, repeat('x', 100) FROM generate_series(1, 1000) AS n`);
    await client.query('SELECT count(*) FROM lines');
    // A backend reports its statistics at most once a second; this one reports at its next statement's end.
    await client.query('SELECT pg_stat_force_next_flush()');
    await client.query('SELECT 1');
  });
  const after = await serverCounters(serverUrl, runId);
  const each = perTransfer(before, after, 1000);
  // 1,000 rows of over 100 bytes, and their index entries.
  expect(each.walBytes).toBeGreaterThan(100);
  expect(each.blocksHit + each.blocksRead).toBeGreaterThan(0);
  expect(each.checkpoints).toBeGreaterThanOrEqual(0);
  const other = perTransfer(otherBefore, await serverCounters(serverUrl, otherRunId), 1000);
  expect(other.blocksHit + other.blocksRead).toBe(0);
});

it('counts the rows a system holds in the tables kept for a window', async () => {
  const url = (service: string) => runDatabaseUrl(serverUrl, runId, service);
  await withClient(url('payments'), (client) => client.query('CREATE TABLE idempotency_keys AS SELECT n FROM generate_series(1, 3) AS n'));
  await withClient(url('gateway'), async (client) => {
    await client.query('CREATE TABLE request_logs AS SELECT n FROM generate_series(1, 1200) AS n');
    await client.query('CREATE TABLE request_nonces AS SELECT n FROM generate_series(1, 2) AS n');
  });
  const rows = await windowedRows(url);
  expect(rows).toEqual({ idempotencyKeys: 3, requestLogs: 1200, nonces: 2 });
  expect(describeWindowedRows(rows)).toBe('3 idempotency keys, 1,200 request logs, 2 nonces');
});
