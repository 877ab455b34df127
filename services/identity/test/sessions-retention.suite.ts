import { createDb, type Db, idempotencyRetentionRule, inboxRetentionRule, purgeRule } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { loginThrottlesRetentionRule } from '../src/features/login-throttle/login-throttle-retention';
import { sessionsRetentionRule } from '../src/features/sessions/sessions-retention';

let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('identity_session_retention', { migratedFor: 'identity' }), { poolMax: 2 });
  await db('tenants').insert({
    id: 'tn_S',
    name: 'S',
    slug: 'sessions-retention',
    config: JSON.stringify({}),
    max_transaction_amount: '1000',
  });
  await db('team_members').insert({
    id: 'tm_S',
    tenant_id: 'tn_S',
    name: 'S',
    email: 's@example.com',
    org_role: 'org-admin',
    status: 'active',
  });
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
  await db.raw(
    `INSERT INTO inbox (message_id, type, processed_at) VALUES ('msg-old', 't', now() - interval '31 days'), ('msg-new', 't', now() - interval '29 days')`,
  );
  expect(await purgeRule(db, inboxRetentionRule(30))).toBe(1);
  expect(await db('inbox').pluck('message_id')).toEqual(['msg-new']);
  expect(await purgeRule(db, idempotencyRetentionRule())).toBe(0);
});

it('forgets a login address whose last failure is older than IDENTITY_LOGIN_FAILURE_MEMORY_SECONDS, and keeps the rest', async () => {
  const hash = (digit: string) => digit.repeat(64);
  await db.raw(
    `INSERT INTO login_throttles (email_hash, failures, last_failure_at, locked_until) VALUES
       (?, 3, now() - interval '61 minutes', NULL),
       (?, 9, now() - interval '62 minutes', now() - interval '32 minutes'),
       (?, 4, now() - interval '59 minutes', NULL),
       (?, 5, now() - interval '1 minute', now() + interval '1 minute')`,
    [hash('a'), hash('b'), hash('c'), hash('d')],
  );
  expect(await purgeRule(db, loginThrottlesRetentionRule(3600))).toBe(2);
  expect(await db('login_throttles').orderBy('email_hash').pluck('email_hash')).toEqual([hash('c'), hash('d')]);
});
