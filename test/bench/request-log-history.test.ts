import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { createRequestLogStore } from '../../services/gateway/src/features/request-logs/request-log-store';
import { buildRequestLogHistory } from '../../scripts/lib/request-log-history';

/** bench:scale's month of request logs: written through the gateway's store, inside the window asked for, counted by day. */
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('bench_request_log_history', { migratedFor: 'gateway' }), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

it('writes the logs asked for over the days asked for, each counted once in its day', async () => {
  const startedMs = Date.now();
  const tenants = [
    { tenantId: 'tn_BIG', environment: 'test' as const, share: 0.9 },
    { tenantId: 'tn_SMALL', environment: 'test' as const, share: 0.1 },
  ];
  const figures = await buildRequestLogHistory({ gatewayDb: db, tenants, count: 2_500, days: 3, batchSize: 400 });
  expect(figures.logs).toBe(2_500);

  const span = await db.raw<{ rows: Array<{ logs: string; oldest: Date; newest: Date }> }>(
    'SELECT count(*) AS logs, min(created_at) AS oldest, max(created_at) AS newest FROM request_logs',
  );
  const row = span.rows[0];
  expect(row?.logs).toBe('2500');
  expect(row?.oldest.getTime()).toBeGreaterThanOrEqual(startedMs - 3 * 86_400_000);
  expect(row?.newest.getTime()).toBeLessThanOrEqual(Date.now());
  // Each UTC day's count equals its logs.
  const days = await db.raw<{ rows: Array<{ day: string; logs: string; counted: string | null }> }>(`
    SELECT to_char(l.day, 'YYYY-MM-DD') AS day, l.logs::text, c.counted::text
      FROM (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS logs FROM request_logs GROUP BY 1) AS l
      LEFT JOIN (SELECT day, sum(requests) AS counted FROM request_log_days GROUP BY 1) AS c USING (day) ORDER BY 1`);
  expect(days.rows.length).toBeGreaterThanOrEqual(3);
  for (const counted of days.rows) expect(counted.counted).toBe(counted.logs);

  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const store = createRequestLogStore(db, { examineMax: 1 });
  const range = { fromDay: day(startedMs - 4 * 86_400_000), toDay: day(Date.now() + 86_400_000) };
  const big = await store.summarize({ tenantId: 'tn_BIG', environment: 'test' }, range);
  const all = await store.summarize({ tenantId: null, environment: 'test' }, range);
  expect(all.totalRequests).toBe(2_500);
  // Nine in ten for the big tenant, give or take the randomness: well inside 80-98 %.
  expect(big.totalRequests).toBeGreaterThan(2_000);
  expect(big.totalRequests).toBeLessThan(2_450);
  expect(all.errorCount).toBeGreaterThan(0);
  expect(all.errorCount).toBeLessThan(all.totalRequests / 4);
});
