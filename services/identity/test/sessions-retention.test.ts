import { createDb, type Db, idempotencyRetentionRule, inboxRetentionRule, migrate, purgeRule } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { sessionsRetentionRule } from '../src/features/sessions/sessions-retention';

let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('identity_session_retention'), { poolMax: 2 });
  await migrate(db, migrations);
  await db('tenants').insert({ id: 'tn_S', name: 'S', slug: 'sessions-retention', config: JSON.stringify({}), max_transaction_amount: '1000' });
  await db('team_members').insert({ id: 'tm_S', tenant_id: 'tn_S', name: 'S', email: 's@example.com', org_role: 'org-admin', status: 'active' });
});
afterAll(async () => {
  await db?.destroy();
});

async function insertSession(id: string, expiredDaysAgo: number): Promise<void> {
  await db.raw(
    `INSERT INTO sessions (id, token_hash, tenant_id, member_id, environment, expires_at)
     VALUES (?, ?, 'tn_S', 'tm_S', 'live', now() - make_interval(days => ?))`,
    [id, `hash-${id}`, expiredDaysAgo],
  );
}

it('deletes sessions expired longer ago than IDENTITY_SESSION_RETENTION_DAYS and keeps the rest', async () => {
  await insertSession('ses_old', 31);
  await insertSession('ses_expired', 29);
  await insertSession('ses_open', -1);
  expect(await purgeRule(db, sessionsRetentionRule(30))).toBe(1);
  expect(await db('sessions').orderBy('id').pluck('id')).toEqual(['ses_expired', 'ses_open']);
});

it('forgets consumed message ids after INBOX_RETENTION_DAYS, found by the inbox BRIN index, and expired idempotency keys', async () => {
  await db.raw(`INSERT INTO inbox (message_id, type, processed_at) VALUES ('msg-old', 't', now() - interval '31 days'), ('msg-new', 't', now() - interval '29 days')`);
  expect(await purgeRule(db, inboxRetentionRule(30))).toBe(1);
  expect(await db('inbox').pluck('message_id')).toEqual(['msg-new']);
  expect(await purgeRule(db, idempotencyRetentionRule())).toBe(0);
});
