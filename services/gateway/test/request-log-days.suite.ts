import fc from 'fast-check';
import type { Environment } from '@wallet/contracts';
import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { createRequestLogStore, type NewRequestLog, type RequestLogStore } from '../src/features/request-logs/request-log-store';

/**
 * request_log_days is what the analytics' request-error summary reads: it must equal the logs
 * it counts, whatever the batches, their order and their concurrency, and after the backfill of
 * logs written before it existed.
 */
const DAYS = 'request_log_days';
let db: Db;
let store: RequestLogStore;

beforeAll(async () => {
  db = createDb(await createTestDatabase('gateway_request_log_days', { migratedFor: 'gateway' }), { poolMax: 4 });
  store = createRequestLogStore(db, { examineMax: 10_000 });
});
afterAll(async () => {
  await db?.destroy();
});

beforeEach(async () => {
  await db.raw(`TRUNCATE request_logs, ${DAYS}`);
});

interface Counted {
  tenant_id: string | null;
  environment: string;
  day: string;
  status: number;
  error_code: string | null;
  requests: string;
}

const ORDER = 'ORDER BY tenant_id NULLS FIRST, environment, day, status, error_code NULLS FIRST';

/** The days as stored, and as counted afresh from the logs. */
async function storedAndCounted(target: Db = db): Promise<{ stored: Counted[]; counted: Counted[] }> {
  const stored = await target.raw<{ rows: Counted[] }>(
    `SELECT tenant_id, environment, to_char(day, 'YYYY-MM-DD') AS day, status, error_code, requests::text FROM ${DAYS} ${ORDER}`,
  );
  const counted = await target.raw<{ rows: Counted[] }>(`
    SELECT tenant_id, environment, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, status, error_code, count(*)::text AS requests
      FROM request_logs WHERE environment IS NOT NULL GROUP BY 1, 2, 3, 4, 5 ${ORDER}`);
  return { stored: stored.rows, counted: counted.rows };
}

let sequence = 0;
const logArbitrary = fc.record({
  tenantId: fc.constantFrom('tn_A', 'tn_B', null),
  environment: fc.constantFrom<Environment | null>('test', 'live', null),
  status: fc.constantFrom(200, 201, 404, 422, 500),
  errorCode: fc.constantFrom(null, 'VALIDATION_ERROR', 'WALLET_NOT_FOUND'),
  // Three UTC days and the instants either side of their midnights.
  offsetMs: fc.oneof(fc.integer({ min: 0, max: 3 * 86_400_000 - 1 }), fc.constantFrom(0, 86_399_999, 86_400_000, 2 * 86_400_000 - 1)),
});

function newLog(fields: {
  tenantId: string | null;
  environment: Environment | null;
  status: number;
  errorCode: string | null;
  offsetMs: number;
}): NewRequestLog {
  sequence += 1;
  return {
    id: `req_${sequence}`,
    tenantId: fields.tenantId,
    environment: fields.environment,
    correlationId: `c-${sequence}`,
    method: 'GET',
    path: '/v1/wallets',
    status: fields.status,
    apiKeyId: null,
    authMode: null,
    requestSignatureVerified: false,
    idempotencyKey: null,
    actorType: null,
    actorId: null,
    durationMs: 1,
    errorCode: fields.errorCode,
    createdAt: new Date(Date.UTC(2026, 10, 1) + fields.offsetMs),
  };
}

/** The logs split into batches, two inserted at a time: instances of the gateway write side by side. */
async function insertInBatches(logs: NewRequestLog[], cuts: number[]): Promise<void> {
  const bounds = [...new Set([0, ...cuts.map((cut) => cut % (logs.length + 1)), logs.length])].sort((a, b) => a - b);
  const batches = bounds.slice(1).map((end, index) => logs.slice(bounds[index], end));
  for (let index = 0; index < batches.length; index += 2)
    await Promise.all(batches.slice(index, index + 2).map((batch) => store.insert(batch)));
}

it('counts every log of an environment once, by tenant, UTC day, status and code, whatever the batches', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(logArbitrary, { minLength: 1, maxLength: 60 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      async (fields, cuts) => {
        await db.raw(`TRUNCATE request_logs, ${DAYS}`);
        await insertInBatches(fields.map(newLog), cuts);
        const { stored, counted } = await storedAndCounted();
        expect(stored).toEqual(counted);
      },
    ),
    { numRuns: 40 },
  );
});

it('summarizes the days asked for as a count of their logs would', async () => {
  const logs = fc.sample(logArbitrary, { numRuns: 400, seed: 17 }).map(newLog);
  await insertInBatches(logs, [50, 120, 121, 300]);
  const ranges: Array<[string, string]> = [
    ['2026-11-01', '2026-11-04'],
    ['2026-11-02', '2026-11-03'],
    ['2026-11-01', '2026-11-02'],
    ['2026-11-03', '2026-11-04'],
  ];
  for (const environment of ['test', 'live'] as const) {
    for (const tenantId of ['tn_A', 'tn_B', null]) {
      for (const [fromDay, toDay] of ranges) {
        const inRange = logs
          .filter((log) => log.environment === environment && (tenantId === null || log.tenantId === tenantId))
          .filter((log) => log.createdAt >= new Date(`${fromDay}T00:00:00Z`) && log.createdAt < new Date(`${toDay}T00:00:00Z`));
        const summary = await store.summarize({ tenantId, environment }, { fromDay, toDay });
        const errors = inRange.filter((log) => log.status >= 400);
        expect(summary.totalRequests).toBe(inRange.length);
        expect(summary.errorCount).toBe(errors.length);
        expect(summary.byStatus.reduce((sum, row) => sum + row.count, 0)).toBe(errors.length);
        expect(summary.byErrorCode).toEqual(
          ['VALIDATION_ERROR', 'WALLET_NOT_FOUND']
            .map((errorCode) => ({ errorCode, count: errors.filter((log) => log.errorCode === errorCode).length }))
            .filter((row) => row.count > 0),
        );
      }
    }
  }
});

it('counts, when it is added, the logs written before it', async () => {
  const before = createDb(await createTestDatabase('gateway_request_log_days_backfill'), { poolMax: 2 });
  try {
    await migrate(
      before,
      migrations.filter((migration) => migration.name !== '20270104120000_request_log_days'),
    );
    const logs = fc.sample(logArbitrary, { numRuns: 200, seed: 5 }).map(newLog);
    // The old writer's statement: the logs alone.
    for (const log of logs) {
      await before('request_logs').insert({
        id: log.id,
        tenant_id: log.tenantId,
        environment: log.environment,
        correlation_id: log.correlationId,
        method: log.method,
        path: log.path,
        status: log.status,
        duration_ms: 1,
        error_code: log.errorCode,
        created_at: log.createdAt,
      });
    }
    await migrate(before, migrations);
    const { stored, counted } = await storedAndCounted(before);
    expect(stored).toEqual(counted);
    expect(stored.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(logs.filter((log) => log.environment !== null).length);
    const summary = await createRequestLogStore(before, { examineMax: 10_000 }).summarize(
      { tenantId: 'tn_A', environment: 'live' },
      { fromDay: '2026-11-01', toDay: '2026-11-04' },
    );
    expect(summary.totalRequests).toBe(logs.filter((log) => log.tenantId === 'tn_A' && log.environment === 'live').length);
  } finally {
    await before.destroy();
  }
});
