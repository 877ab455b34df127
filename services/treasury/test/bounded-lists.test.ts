import { createDb, type Db, DEFAULT_LIST_EXAMINE_MAX, migrate, useListExamineMax } from '@wallet/kit';
import { createTestDatabase, idsPageByPage } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { listFloatDeposits } from '../src/features/float-deposits/float-deposits-store';
import { listWithdrawals } from '../src/features/withdrawals/withdrawals-store';

/**
 * A status or currency no index serves is tested on at most LIST_EXAMINE_MAX records a request
 * (3 here): a value only the oldest record has costs each request the same, and the cursors
 * still lead to it.
 */
const TENANT = 'tn_BOUNDED';
const scope = { tenantId: TENANT, environment: 'test' as const };
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('treasury_bounded_lists'), { poolMax: 2 });
  await migrate(db, migrations);
  useListExamineMax(3);
});
afterAll(async () => {
  useListExamineMax(DEFAULT_LIST_EXAMINE_MAX);
  await db?.destroy();
});

const pages = (read: Parameters<typeof idsPageByPage>[0]) => idsPageByPage(read, 2);

it('float deposits by status and currency', async () => {
  const deposit = (id: string, currencyCode: string, status: string) => ({ id, tenant_id: TENANT, environment: 'test', currency_code: currencyCode, amount: '10.00', rail: 'cash', status, created_at: new Date() });
  await db('float_deposits').insert([deposit('fd_kes', 'KES', 'failed'), ...Array.from({ length: 8 }, (_, index) => deposit(`fd_${index}`, 'USD', 'completed'))]);
  expect(await pages((beforeSeq) => listFloatDeposits(db, scope, { currencyCode: 'KES', beforeSeq, limit: 2 }))).toEqual([[], [], ['fd_kes']]);
  expect(await pages((beforeSeq) => listFloatDeposits(db, scope, { status: 'failed', beforeSeq, limit: 2 }))).toEqual([[], [], ['fd_kes']]);
});

it('withdrawal cases by status', async () => {
  const withdrawal = (id: string, status: string) => ({
    id, tenant_id: TENANT, environment: 'test', source: 'tenant_fees', currency_code: 'USD', amount: '3.00', payout_method: 'cash', destination: JSON.stringify({}),
    requested_by: 'usr_A', status, created_at: new Date(), ...(status === 'failed' ? { failure_code: 'INSUFFICIENT_FUNDS' } : {}),
  });
  await db('withdrawals').insert([withdrawal('wd_pending', 'pending'), ...Array.from({ length: 8 }, (_, index) => withdrawal(`wd_${index}`, 'failed'))]);
  expect(await pages((beforeSeq) => listWithdrawals(db, scope, { status: 'pending', beforeSeq, limit: 2 }))).toEqual([[], [], ['wd_pending']]);
});
