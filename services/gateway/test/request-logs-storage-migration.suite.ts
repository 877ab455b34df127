import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { createRequestLogStore, type NewRequestLog } from '../src/features/request-logs/request-log-store';

/** The migration that makes request logs' indexes smaller, run on a database that already holds logs. */
const STORAGE = '20261230120000_request_logs_storage';
const SCOPE = { tenantId: 'tn_MIGRATION', environment: 'test' as const };
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('gateway_request_logs_storage'), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

function log(id: string, correlationId: string, createdAt: string, tenantId = SCOPE.tenantId): NewRequestLog {
  return {
    id,
    tenantId,
    environment: 'test',
    correlationId,
    method: 'GET',
    path: '/v1/journal',
    status: 200,
    apiKeyId: null,
    authMode: null,
    requestSignatureVerified: false,
    idempotencyKey: null,
    actorType: null,
    actorId: null,
    durationMs: 1,
    errorCode: null,
    createdAt: new Date(createdAt),
  };
}

it('lists the logs written before and after it, newest first, page by page and by correlation id', async () => {
  await migrate(
    db,
    migrations.slice(
      0,
      migrations.findIndex((migration) => migration.name === STORAGE),
    ),
  );
  // The writer of that time: the logs alone.
  for (const old of [
    log('req_1', 'c-1', '2026-01-01T00:00:01Z'),
    log('req_2', 'c-2', '2026-01-01T00:00:02Z'),
    log('req_9', 'c-1', '2026-01-01T00:00:02Z', 'tn_OTHER'),
  ]) {
    await db('request_logs').insert({
      id: old.id,
      tenant_id: old.tenantId,
      environment: old.environment,
      correlation_id: old.correlationId,
      method: old.method,
      path: old.path,
      status: old.status,
      duration_ms: old.durationMs,
      created_at: old.createdAt,
    });
  }

  await migrate(db, migrations);
  const store = createRequestLogStore(db, { examineMax: 10_000 });

  const indexes: { rows: Array<{ indexname: string }> } = await db.raw(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'request_logs' ORDER BY indexname`,
  );
  expect(indexes.rows.map((row) => row.indexname)).toEqual([
    'request_logs_correlation',
    'request_logs_created_brin',
    'request_logs_scope_time',
  ]);
  await store.insert([log('req_3', 'c-1', '2026-01-01T00:00:02Z')]);
  const first = await store.list(SCOPE, { limit: 2 });
  expect(first.data.map((record) => record.id)).toEqual(['req_3', 'req_2']);
  const second = await store.list(SCOPE, { limit: 2, cursor: first.nextCursor ?? undefined });
  expect(second.data.map((record) => record.id)).toEqual(['req_1']);
  expect((await store.list(SCOPE, { limit: 10, correlationId: 'c-1' })).data.map((record) => record.id)).toEqual(['req_3', 'req_1']);
});
