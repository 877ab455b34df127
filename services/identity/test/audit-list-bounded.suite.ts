import { createDb, type Db, DEFAULT_LIST_EXAMINE_MAX, useListExamineMax } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { listAuditEvents } from '../src/features/audit/audit-store';

/**
 * The audit trail's action, actor, time and environment are tested on at most LIST_EXAMINE_MAX
 * events a request (3 here); the target is served by its index. An action only the oldest
 * event has costs each request the same, and the cursors still lead to it.
 */
const TENANT = 'tn_BOUNDED';
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('identity_audit_bounded', { migratedFor: 'identity' }), { poolMax: 2 });
  useListExamineMax(3);
  const event = (id: string, action: string, environment: string | null, createdAt: string) => ({
    id,
    tenant_id: TENANT,
    environment,
    action,
    actor_type: 'team_member',
    actor_id: 'usr_A',
    target_type: 'wallet',
    target_id: id === 'ae_old' ? 'wl_OLD' : 'wl_X',
    created_at: createdAt,
  });
  await db('audit_events').insert([
    event('ae_old', 'wallet.frozen', 'test', '2026-01-01T00:00:00Z'),
    ...Array.from({ length: 8 }, (_, index) =>
      event(`ae_${index}`, 'api_key.created', index % 2 === 0 ? null : 'live', '2026-06-01T00:00:00Z'),
    ),
  ]);
});
afterAll(async () => {
  useListExamineMax(DEFAULT_LIST_EXAMINE_MAX);
  await db?.destroy();
});

async function pages(
  query: { action?: string; to?: string; targetType?: string; targetId?: string },
  environment: 'test' | 'live' = 'test',
): Promise<string[][]> {
  const seen: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listAuditEvents(db, { tenantId: TENANT, environment }, { ...query, limit: 2, ...(cursor ? { cursor } : {}) });
    seen.push(page.data.map((event) => event.id));
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
}

it('finds an action, a time or an environment only the oldest event has, three events a request', async () => {
  expect(await pages({ action: 'wallet.frozen' })).toEqual([[], [], ['ae_old']]);
  expect(await pages({ to: '2026-02-01T00:00:00.000Z' })).toEqual([[], [], ['ae_old']]);
  // From test: the tenant-wide events (environment null) and the test one, never the live ones.
  expect((await pages({})).flat()).toEqual(['ae_6', 'ae_4', 'ae_2', 'ae_0', 'ae_old']);
  expect((await pages({}, 'live')).flat()).toEqual(['ae_7', 'ae_6', 'ae_5', 'ae_4', 'ae_3', 'ae_2', 'ae_1', 'ae_0']);
});

it('takes a target from its index: one answer, no empty pages', async () => {
  expect(await pages({ targetType: 'wallet', targetId: 'wl_OLD' })).toEqual([['ae_old']]);
});
