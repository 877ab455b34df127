import fc from 'fast-check';
import { createDb, type Db, DEFAULT_LIST_EXAMINE_MAX, useListExamineMax } from '@wallet/kit';
import { createTestDatabase, idsPageByPage, queryPlans } from '@wallet/kit/testing';
import { listDeposits } from '../src/features/deposits/deposits-store';
import { listCases } from '../src/features/payouts/payouts-store';
import { listTransfers } from '../src/features/transfers/transfers-store';
import { listWallets } from '../src/features/wallets/wallets-store';

/**
 * A status (or a deposit's source) no index serves is tested on at most LIST_EXAMINE_MAX records
 * a request: a value only old records have costs each request the same, and following the
 * cursors still finds them. Here the bound is 3 and the old records sit under 8 newer ones.
 * Pending payout cases, the approvals inbox, come from their own index.
 */
const TENANT = 'tn_BOUNDED';
const scope = { tenantId: TENANT, environment: 'test' as const };
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('payments_bounded_lists', { migratedFor: 'payments' }), { poolMax: 2 });
  for (const id of ['wl_A', 'wl_B'])
    await db('wallets').insert({ id, tenant_id: TENANT, environment: 'test', owner_type: 'user', owner_id: id, currency_code: 'USD' });
  useListExamineMax(3);
});
afterAll(async () => {
  useListExamineMax(DEFAULT_LIST_EXAMINE_MAX);
  await db?.destroy();
});

const pages = (read: Parameters<typeof idsPageByPage>[0]) => idsPageByPage(read, 2);

function payout(id: string, status: 'pending' | 'rejected' | 'failed') {
  return {
    id,
    tenant_id: TENANT,
    environment: 'test',
    wallet_id: 'wl_A',
    currency_code: 'USD',
    amount: '2.00',
    fee: '0.00',
    commission: '0.00',
    platform_commission_bps: 0,
    payout_method: 'momo',
    destination: JSON.stringify({ phoneNumber: '+254700000000' }),
    requested_by: 'usr_A',
    status,
    ...(status === 'failed' ? { failure_code: 'INSUFFICIENT_FUNDS' } : {}),
    ...(status === 'rejected'
      ? {
          hold_entry_id: `je_hold_${id}`,
          decided_by: 'usr_B',
          decided_at: new Date(),
          rejection_reason: 'no',
          decision_entry_id: `je_release_${id}`,
        }
      : {}),
  };
}

it('transfers by status, and by wallet and status', async () => {
  const transfer = (id: string, status: string, to = 'wl_B') => ({
    id,
    tenant_id: TENANT,
    environment: 'test',
    from_wallet_id: 'wl_A',
    to_wallet_id: to,
    currency_code: 'USD',
    amount: '1.00',
    fee: '0.00',
    commission: '0.00',
    platform_commission_bps: 0,
    status,
    finished_at: new Date(),
    ...(status === 'failed' ? { failure_code: 'INSUFFICIENT_FUNDS' } : { journal_entry_id: `je_${id}` }),
  });
  await db('transfers').insert([
    transfer('tx_failed', 'failed'),
    ...Array.from({ length: 8 }, (_, index) => transfer(`tx_${index}`, 'completed')),
  ]);
  // Nine transfers, three tested a request: the failed one, the oldest, is in the third answer.
  expect(await pages((after) => listTransfers(db, scope, { status: 'failed', after, limit: 2 }))).toEqual([[], [], ['tx_failed']]);
  expect(await pages((after) => listTransfers(db, scope, { walletId: 'wl_A', status: 'failed', after, limit: 2 }))).toEqual([
    [],
    [],
    ['tx_failed'],
  ]);
  expect((await pages((after) => listTransfers(db, scope, { status: 'completed', after, limit: 2 }))).flat()).toEqual([
    'tx_7',
    'tx_6',
    'tx_5',
    'tx_4',
    'tx_3',
    'tx_2',
    'tx_1',
    'tx_0',
  ]);
});

it('deposits by source and status; payout cases by status, pending ones in one answer', async () => {
  const deposit = (id: string, source: 'momo' | 'bank_slip') => ({
    id,
    tenant_id: TENANT,
    environment: 'test',
    wallet_id: 'wl_A',
    amount: '5.00',
    currency_code: 'USD',
    source,
    external_ref: id,
    status: 'pending',
    ...(source === 'momo' ? { provider_code: 'mtn' } : { bank_code: 'BANK', slip_reference: id }),
  });
  await db('deposits').insert([
    deposit('dp_slip', 'bank_slip'),
    ...Array.from({ length: 8 }, (_, index) => deposit(`dp_${index}`, 'momo')),
  ]);
  expect(await pages((after) => listDeposits(db, scope, { source: 'bank_slip', after, limit: 2 }))).toEqual([[], [], ['dp_slip']]);
  // Pending slips, awaiting their statement, from their own index: in the first answer.
  expect(await pages((after) => listDeposits(db, scope, { source: 'bank_slip', status: 'pending', after, limit: 2 }))).toEqual([
    ['dp_slip'],
  ]);
  expect(
    await pages((after) => listDeposits(db, scope, { walletId: 'wl_A', source: 'bank_slip', status: 'pending', after, limit: 2 })),
  ).toEqual([['dp_slip']]);

  await db('payout_cases').insert([
    payout('pc_failed', 'failed'),
    payout('pc_pending', 'pending'),
    ...Array.from({ length: 8 }, (_, index) => payout(`pc_${index}`, 'rejected')),
  ]);
  expect(await pages((after) => listCases(db, scope, { status: 'failed', after, limit: 2 }))).toEqual([[], [], [], ['pc_failed']]);
  // The approvals inbox: pending cases from their own index, in the first answer.
  expect(await pages((after) => listCases(db, scope, { status: 'pending', after, limit: 2 }))).toEqual([['pc_pending']]);
  expect(await pages((after) => listCases(db, scope, { walletId: 'wl_A', status: 'pending', after, limit: 2 }))).toEqual([['pc_pending']]);
});

it('reads the pending bank slips through their own index, whatever lies above them', async () => {
  const momo = Array.from({ length: 20_000 }, (_, index) => ({
    id: `dp_momo_${index}`,
    tenant_id: TENANT,
    environment: 'test',
    wallet_id: 'wl_A',
    amount: '5.00',
    currency_code: 'USD',
    source: 'momo',
    external_ref: `momo_${index}`,
    status: 'completed',
    provider_code: 'mtn',
  }));
  await db.batchInsert('deposits', momo, 2_000);
  await db.raw('ANALYZE deposits');
  for (const walletId of [undefined, 'wl_A']) {
    const plans = await queryPlans(db, () => listDeposits(db, scope, { walletId, source: 'bank_slip', status: 'pending', limit: 50 }));
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expect(plan).toContain('deposits_pending_slips_seq');
  }
});

it('finds a deposit by its reference or its phone number through their indexes, behind 20,000 others', async () => {
  // The 20,000 mobile money deposits of the test above are newer than dp_0..dp_7 and dp_slip.
  await db('deposits').where({ id: 'dp_3' }).update({ phone_number: '+256700000003' });
  await db.raw('ANALYZE deposits');
  expect((await listDeposits(db, scope, { externalRef: 'dp_slip', limit: 5 })).rows.map((row) => row.id)).toEqual(['dp_slip']);
  expect((await listDeposits(db, scope, { phoneNumber: '+256700000003', limit: 5 })).rows.map((row) => row.id)).toEqual(['dp_3']);
  for (const [filter, index] of [
    [{ externalRef: 'momo_17' }, 'deposits_external_ref_seq'],
    [{ phoneNumber: '+256700000003' }, 'deposits_phone_number_seq'],
  ] as const) {
    const plans = await queryPlans(db, () => listDeposits(db, scope, { ...filter, limit: 50 }));
    expect(plans).toEqual([expect.stringContaining(index)]);
  }
});

it('reads the pending payout cases through their own index, whatever lies above them', async () => {
  const decided = Array.from({ length: 20_000 }, (_, index) => payout(`pc_decided_${index}`, 'rejected'));
  await db.batchInsert('payout_cases', decided, 2_000);
  await db.raw('ANALYZE payout_cases');
  const plans = await queryPlans(db, () => listCases(db, scope, { status: 'pending', limit: 50 }));
  expect(plans).toEqual([expect.stringContaining('payout_cases_pending')]);
  // A wallet's pending cases too: its own index would walk its decided cases to reach them.
  const ofWallet = await queryPlans(db, () => listCases(db, scope, { walletId: 'wl_A', status: 'pending', limit: 50 }));
  expect(ofWallet.length).toBeGreaterThan(0);
  for (const plan of ofWallet) expect(plan).toContain('payout_cases_pending');
});

it('wallets by status, currency or half an owner; a whole owner from its index', async () => {
  const owners = { tenantId: 'tn_WALLETS', environment: 'test' as const };
  const wallet = (id: string, status: string, currencyCode = 'USD') => ({
    id,
    tenant_id: owners.tenantId,
    environment: 'test',
    owner_type: 'user',
    owner_id: `usr_${id}`,
    currency_code: currencyCode,
    status,
  });
  await db('wallets').insert([
    wallet('wl_frozen', 'frozen', 'KES'),
    ...Array.from({ length: 8 }, (_, index) => wallet(`wl_${index}`, 'active')),
  ]);
  expect(await pages((after) => listWallets(db, owners, { status: 'frozen', after, limit: 2 }))).toEqual([[], [], ['wl_frozen']]);
  expect(await pages((after) => listWallets(db, owners, { currencyCode: 'KES', after, limit: 2 }))).toEqual([[], [], ['wl_frozen']]);
  expect(await pages((after) => listWallets(db, owners, { ownerId: 'usr_wl_frozen', after, limit: 2 }))).toEqual([[], [], ['wl_frozen']]);
  expect(await pages((after) => listWallets(db, owners, { ownerType: 'user', ownerId: 'usr_wl_frozen', after, limit: 2 }))).toEqual([
    ['wl_frozen'],
  ]);
});

it('a creation-time range finds exactly the records created in it, on every list, though seq does not follow created_at', async () => {
  const base = Date.UTC(2026, 10, 1);
  const instant = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 9 }),
      fc.option(fc.integer({ min: 0, max: 61 }), { nil: undefined }),
      fc.option(fc.integer({ min: 0, max: 61 }), { nil: undefined }),
      async (createdMinutes, fromMinute, toMinute) => {
        const tenant = { tenantId: `tn_RANGE_${(run += 1)}`, environment: 'test' as const };
        const rows = createdMinutes.map((minute, index) => ({ id: `wl_r${run}_${index}`, created_at: instant(minute) }));
        await db('wallets').insert(
          rows.map((row) => ({
            ...row,
            tenant_id: tenant.tenantId,
            environment: 'test',
            owner_type: 'user',
            owner_id: row.id,
            currency_code: 'USD',
          })),
        );
        const range = {
          createdFrom: fromMinute === undefined ? undefined : instant(fromMinute),
          createdTo: toMinute === undefined ? undefined : instant(toMinute),
        };
        const inRange = rows.filter(
          (row) =>
            (range.createdFrom === undefined || row.created_at >= range.createdFrom) &&
            (range.createdTo === undefined || row.created_at < range.createdTo),
        );
        const found = (await pages((after) => listWallets(db, tenant, { ...range, after, limit: 2 }))).flat();
        // Newest first along seq: the order they were inserted, reversed, whatever their times.
        expect(found).toEqual(inRange.map((row) => row.id).reverse());
      },
    ),
    { numRuns: 25 },
  );
});

it('each money list takes the range: transfers, deposits and payout cases', async () => {
  const range = { createdFrom: '2026-11-02T00:00:00.000Z', createdTo: '2026-11-03T00:00:00.000Z' };
  const days = ['2026-11-01T12:00:00.000Z', '2026-11-02T00:00:00.000Z', '2026-11-02T23:59:59.999Z', '2026-11-03T00:00:00.000Z'];
  const tenant = { tenantId: 'tn_RANGED', environment: 'test' as const };
  const inScope = { tenant_id: tenant.tenantId, environment: 'test', currency_code: 'USD' };
  const scoped = { ...inScope, wallet_id: 'wl_A' };
  await db('transfers').insert(
    days.map((created_at, index) => ({
      ...inScope,
      id: `tx_day${index}`,
      from_wallet_id: 'wl_A',
      to_wallet_id: 'wl_B',
      amount: '1.00',
      fee: '0.00',
      commission: '0.00',
      platform_commission_bps: 0,
      status: 'pending',
      created_at,
    })),
  );
  await db('deposits').insert(
    days.map((created_at, index) => ({
      ...scoped,
      id: `dp_day${index}`,
      amount: '5.00',
      source: 'momo',
      provider_code: 'mtn',
      external_ref: `day${index}`,
      status: 'pending',
      created_at,
    })),
  );
  await db('payout_cases').insert(
    days.map((created_at, index) => ({ ...payout(`pc_day${index}`, 'pending'), tenant_id: tenant.tenantId, created_at })),
  );
  const inRange = (prefix: string) => [`${prefix}_day2`, `${prefix}_day1`];
  expect((await pages((after) => listTransfers(db, tenant, { ...range, after, limit: 5 }))).flat()).toEqual(inRange('tx'));
  expect((await pages((after) => listDeposits(db, tenant, { ...range, after, limit: 5 }))).flat()).toEqual(inRange('dp'));
  expect((await pages((after) => listCases(db, tenant, { ...range, after, limit: 5 }))).flat()).toEqual(inRange('pc'));
  // The approvals inbox's own index, with a range tested on it.
  expect((await pages((after) => listCases(db, tenant, { ...range, status: 'pending', after, limit: 5 }))).flat()).toEqual(inRange('pc'));
});
