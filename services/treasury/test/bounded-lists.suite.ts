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
  expect(await pages((after) => listFloatDeposits(db, scope, { currencyCode: 'KES', after, limit: 2 }))).toEqual([[], [], ['fd_kes']]);
  expect(await pages((after) => listFloatDeposits(db, scope, { status: 'failed', after, limit: 2 }))).toEqual([[], [], ['fd_kes']]);
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
  expect(await pages((after) => listWithdrawals(db, scope, { status: 'failed', after, limit: 2 }))).toEqual([[], [], [], ['wd_failed']]);
  // The approvals inbox: pending cases from their own index, in the first answer.
  expect(await pages((after) => listWithdrawals(db, scope, { status: 'pending', after, limit: 2 }))).toEqual([['wd_pending']]);
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

it('withdrawals and float deposits by amount, either way, from their amount indexes', async () => {
  const sorted = { tenantId: 'tn_SORTED', environment: 'test' as const };
  const amounts = ['40.00', '5.50', '120.00', '5.50', '0.75'];
  await db('withdrawals').insert(
    amounts.map((amount, index) => ({
      ...withdrawal(`wd_amount${index}`, index === 2 ? 'failed' : 'pending'),
      tenant_id: sorted.tenantId,
      amount,
    })),
  );
  await db('float_deposits').insert(
    amounts.map((amount, index) => ({
      id: `fd_amount${index}`,
      tenant_id: sorted.tenantId,
      environment: 'test',
      currency_code: 'USD',
      amount,
      rail: 'cash',
      status: 'completed',
      created_at: new Date(),
    })),
  );
  const withdrawals = (sort: 'amount' | '-amount', status?: 'pending') =>
    idsPageByPage((after) => listWithdrawals(db, sorted, { sort, status, after, limit: 2 }), 2, sort);
  expect((await withdrawals('amount')).flat()).toEqual(['wd_amount4', 'wd_amount1', 'wd_amount3', 'wd_amount0', 'wd_amount2']);
  expect((await withdrawals('-amount', 'pending')).flat()).toEqual(['wd_amount0', 'wd_amount3', 'wd_amount1', 'wd_amount4']);
  const floats = await idsPageByPage((after) => listFloatDeposits(db, sorted, { sort: '-amount', after, limit: 2 }), 2, '-amount');
  expect(floats.flat()).toEqual(['fd_amount2', 'fd_amount0', 'fd_amount3', 'fd_amount1', 'fd_amount4']);
  const plans = await queryPlans(db, async () => {
    await listWithdrawals(db, sorted, { sort: '-amount', status: 'pending', limit: 2 });
    await listFloatDeposits(db, sorted, { sort: 'amount', currencyCode: 'USD', limit: 2 });
  });
  expect(plans.join('\n')).toMatch(/withdrawals_scope_amount_seq[\s\S]*float_deposits_scope_amount_seq/);
});
