import { createDb, type Db, idempotencyRetentionRule, inboxRetentionRule, purgeRule } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { analyticsEntriesRetentionRule } from '../src/features/analytics/analytics-retention';

let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('treasury_analytics_retention', { migratedFor: 'treasury' }), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

async function insertEntry(id: string, postedDaysAgo: number, appliedDaysAgo: number): Promise<void> {
  await db.raw(
    `INSERT INTO analytics_entries (journal_entry_id, tenant_id, environment, kind, posted_at, applied_at)
     VALUES (?, 'tn_A', 'live', 'transfer', now() - make_interval(days => ?), now() - make_interval(days => ?))`,
    [id, postedDaysAgo, appliedDaysAgo],
  );
}

it('forgets an entry once it was posted and counted longer ago than the window, and keeps the sums', async () => {
  await db('analytics_daily').insert({
    tenant_id: 'tn_A',
    environment: 'live',
    currency_code: 'USD',
    day: '2026-01-01',
    kind: 'transfer',
    entry_count: 3,
    volume: '30',
  });
  await insertEntry('je_old', 40, 40);
  await insertEntry('je_recent', 2, 2);
  // Posted long ago but counted yesterday (a backlog worked off late): its claim stays the window.
  await insertEntry('je_late', 40, 1);
  expect(await purgeRule(db, analyticsEntriesRetentionRule(30))).toBe(1);
  expect(await db('analytics_entries').orderBy('journal_entry_id').pluck('journal_entry_id')).toEqual(['je_late', 'je_recent']);
  expect(await db('analytics_daily').pluck('entry_count')).toEqual(['3']);
});

it('forgets consumed message ids after INBOX_RETENTION_DAYS, found by the inbox BRIN index, and expired idempotency keys', async () => {
  await db.raw(
    `INSERT INTO inbox (message_id, type, processed_at) VALUES ('msg-old', 't', now() - interval '31 days'), ('msg-new', 't', now() - interval '29 days')`,
  );
  expect(await purgeRule(db, inboxRetentionRule(30))).toBe(1);
  expect(await db('inbox').pluck('message_id')).toEqual(['msg-new']);
  expect(await purgeRule(db, idempotencyRetentionRule())).toBe(0);
});
