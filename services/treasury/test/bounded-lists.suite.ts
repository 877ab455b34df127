import { createDb, type Db, DEFAULT_LIST_EXAMINE_MAX, useListExamineMax } from '@wallet/kit';
import { createTestDatabase, idsPageByPage, queryPlans } from '@wallet/kit/testing';
import { listFloatDeposits } from '../src/features/float-deposits/float-deposits-store';
import { listWithdrawals } from '../src/features/withdrawals/withdrawals-store';

/**
 * A status or currency no index serves is tested on at most LIST_EXAMINE_MAX records a request
 * (3 here): a value only the oldest record has costs each request the same, and the cursors
 * still lead to it. Pending cases, the approvals inbox, come from their own index.
 */
const TENANT = 'tn_BOUNDED';
const scope = { tenantId: TENANT, environment: 'test' as const };
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('treasury_bounded_lists', { migratedFor: 'treasury' }), { poolMax: 2 });
  useListExamineMax(3);
});
afterAll(async () => {
  useListExamineMax(DEFAULT_LIST_EXAMINE_MAX);
  await db?.destroy();
});

const pages = (read: Parameters<typeof idsPageByPage>[0]) => idsPageByPage(read, 2);

it('float deposits by status and currency', async () => {
  const deposit = (id: string, currencyCode: string, status: string) => ({
    id,
    tenant_id: TENANT,
    environment: 'test',
    currency_code: currencyCode,
    amount: '10.00',
    rail: 'cash',
    status,
    created_at: new Date(),
  });
  await db('float_deposits').insert([
    deposit('fd_kes', 'KES', 'failed'),
    ...Array.from({ length: 8 }, (_, index) => deposit(`fd_${index}`, 'USD', 'completed')),
  ]);
  expect(await pages((beforeSeq) => listFloatDeposits(db, scope, { currencyCode: 'KES', beforeSeq, limit: 2 }))).toEqual([
    [],
    [],
    ['fd_kes'],
  ]);
  expect(await pages((beforeSeq) => listFloatDeposits(db, scope, { status: 'failed', beforeSeq, limit: 2 }))).toEqual([[], [], ['fd_kes']]);
});

function withdrawal(id: string, status: 'pending' | 'rejected' | 'failed') {
  return {
    id,
    tenant_id: TENANT,
    environment: 'test',
    source: 'tenant_fees',
    currency_code: 'USD',
    amount: '3.00',
    payout_method: 'cash',
    destination: JSON.stringify({}),
    requested_by: 'usr_A',
    status,
    created_at: new Date(),
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

it('withdrawal cases by status, pending ones in one answer', async () => {
  await db('withdrawals').insert([
    withdrawal('wd_failed', 'failed'),
    withdrawal('wd_pending', 'pending'),
    ...Array.from({ length: 8 }, (_, index) => withdrawal(`wd_${index}`, 'rejected')),
  ]);
  expect(await pages((beforeSeq) => listWithdrawals(db, scope, { status: 'failed', beforeSeq, limit: 2 }))).toEqual([
    [],
    [],
    [],
    ['wd_failed'],
  ]);
  // The approvals inbox: pending cases from their own index, in the first answer.
  expect(await pages((beforeSeq) => listWithdrawals(db, scope, { status: 'pending', beforeSeq, limit: 2 }))).toEqual([['wd_pending']]);
});

it('reads the pending withdrawals through their own index, whatever lies above them', async () => {
  await db.batchInsert(
    'withdrawals',
    Array.from({ length: 20_000 }, (_, index) => withdrawal(`wd_decided_${index}`, 'rejected')),
    2_000,
  );
  await db.raw('ANALYZE withdrawals');
  const plans = await queryPlans(db, () => listWithdrawals(db, scope, { status: 'pending', limit: 50 }));
  expect(plans).toEqual([expect.stringContaining('withdrawals_pending')]);
});
