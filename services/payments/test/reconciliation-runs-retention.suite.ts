import { createDb, type Db, fullRunsRetentionRule, idempotencyRetentionRule, inboxRetentionRule, purgeRule } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { reconciliationRunsRetentionRule } from '../src/features/reconciliation/reconciliation-runs-retention';

let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('payments_run_retention', { migratedFor: 'payments' }), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

async function insertRun(id: string, daysAgo: number, status: 'ok' | 'mismatch' | 'error'): Promise<void> {
  const at = new Date(Date.now() - daysAgo * 24 * 60 * 60 * 1000);
  await db('reconciliation_runs').insert({
    id,
    round_at: at,
    started_at: at,
    finished_at: at,
    status,
    mismatch_counts: status === 'error' ? null : JSON.stringify({}),
    result: null,
    error: status === 'error' ? 'ledger unreachable' : null,
  });
}

it('deletes scheduled runs past PAYMENTS_RECONCILIATION_RUN_RETENTION_DAYS but the newest run and the newest completed one', async () => {
  // Ids sort by creation time, as the service's do.
  await insertRun('rcr_01', 120, 'ok');
  await insertRun('rcr_02', 110, 'mismatch');
  await insertRun('rcr_03', 100, 'error');
  await insertRun('rcr_04', 95, 'error');
  expect(await purgeRule(db, reconciliationRunsRetentionRule(90))).toBe(2);
  // rcr_02 is the newest completed run and rcr_04 the newest run: both stay, however old.
  expect(await db('reconciliation_runs').orderBy('id').pluck('id')).toEqual(['rcr_02', 'rcr_04']);
  await insertRun('rcr_05', 1, 'ok');
  expect(await purgeRule(db, reconciliationRunsRetentionRule(90))).toBe(2);
  expect(await db('reconciliation_runs').orderBy('id').pluck('id')).toEqual(['rcr_05']);
});

it('forgets consumed message ids after INBOX_RETENTION_DAYS, found by the inbox BRIN index, and expired idempotency keys', async () => {
  await db.raw(
    `INSERT INTO inbox (message_id, type, processed_at) VALUES ('msg-old', 't', now() - interval '31 days'), ('msg-new', 't', now() - interval '29 days')`,
  );
  expect(await purgeRule(db, inboxRetentionRule(30))).toBe(1);
  expect(await db('inbox').pluck('message_id')).toEqual(['msg-new']);
  expect(await purgeRule(db, idempotencyRetentionRule())).toBe(0);
});

it('deletes finished full runs past RECONCILIATION_FULL_RUN_RETENTION_DAYS; a queued or running run stays however old', async () => {
  const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  await db('reconciliation_full_runs').insert([
    { id: 'rfr_old_done', state: 'succeeded', created_at: daysAgo(100), started_at: daysAgo(100), finished_at: daysAgo(100) },
    { id: 'rfr_old_failed', state: 'failed', created_at: daysAgo(95), started_at: daysAgo(95), finished_at: daysAgo(95) },
    { id: 'rfr_old_running', state: 'running', created_at: daysAgo(120), started_at: daysAgo(120), finished_at: null },
    { id: 'rfr_recent', state: 'succeeded', created_at: daysAgo(2), started_at: daysAgo(2), finished_at: daysAgo(2) },
  ]);
  expect(await purgeRule(db, fullRunsRetentionRule(90))).toBe(2);
  expect(await db('reconciliation_full_runs').orderBy('id').pluck('id')).toEqual(['rfr_old_running', 'rfr_recent']);
});
