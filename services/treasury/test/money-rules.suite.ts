import { randomUUID } from 'node:crypto';
import { errorBodySchema, floatDepositSchema } from '@wallet/contracts';
import type { Caller, HttpResult } from './support';
import { startWithdrawalsHarness, type WithdrawalsHarness, type WithdrawalTenant } from './withdrawals-support';

/**
 * The tenant rules on treasury's money movements: the transaction ceiling (maxTransactionAmount,
 * inclusive) on float deposits and withdrawals, and the depositor of a float deposit, who must
 * be an active member allowed to move treasury money. Real: treasury, the ledger and identity.
 */
let harness: WithdrawalsHarness & { closeAll(): Promise<void> };
const CEILING = '1000000';

beforeAll(async () => {
  harness = await startWithdrawalsHarness();
});

afterAll(async () => {
  await harness?.closeAll();
});

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

function floatDeposit(caller: Caller, amount: string, extra: Record<string, unknown> = {}): Promise<HttpResult> {
  return harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
    body: { amount, currencyCode: 'USD', rail: 'bank', ...extra },
  });
}

async function rowsOf(table: string, tenantId: string): Promise<number> {
  const [row] = await harness.db(table).where({ tenant_id: tenantId }).count<Array<{ count: string }>>('* as count');
  return Number(row?.count);
}

async function entriesOf(tenantId: string): Promise<number> {
  const [row] = await harness.ledgerDb('journal_entries').where({ tenant_id: tenantId }).count<Array<{ count: string }>>('* as count');
  return Number(row?.count);
}

describe('maxTransactionAmount on float deposits and withdrawals', () => {
  it('refuses one cent over the ceiling with 422 AMOUNT_EXCEEDS_LIMIT, storing and posting nothing; the ceiling itself passes', async () => {
    const tenant = await harness.newTenant({ maxTransactionAmount: CEILING });
    const overDeposit = expectError(await floatDeposit(tenant, '1000000.01'), 422, 'AMOUNT_EXCEEDS_LIMIT');
    expect(overDeposit.details).toEqual({ maxTransactionAmount: CEILING });
    expect(await rowsOf('float_deposits', tenant.tenantId)).toBe(0);

    expect((await floatDeposit(tenant, '1000000.00')).status).toBe(201);
    expect((await floatDeposit(tenant, '1000000.00')).status).toBe(201);
    const overWithdrawal = expectError(
      await harness.requestWithdrawal(tenant, { source: 'operating_float', amount: '1000000.01' }),
      422,
      'AMOUNT_EXCEEDS_LIMIT',
    );
    expect(overWithdrawal.details).toEqual({ maxTransactionAmount: CEILING });
    expect(await rowsOf('withdrawals', tenant.tenantId)).toBe(0);
    expect((await harness.requestWithdrawal(tenant, { source: 'operating_float', amount: '1000000.00' })).status).toBe(201);
    expect(await entriesOf(tenant.tenantId)).toBe(3);
  });

  it("reads a tenant treasury never heard of from identity, and the tenant's later events still win", async () => {
    const tenant = await harness.newTenant({ maxTransactionAmount: '500', announced: false });
    expect(expectError(await floatDeposit(tenant, '500.01'), 422, 'AMOUNT_EXCEEDS_LIMIT').details).toEqual({
      maxTransactionAmount: '500.00',
    });
    await harness.newCaller(['USD', 'UGX'], tenant.tenantId, { maxTransactionAmount: '750' });
    expect(await harness.db('tenants').where({ id: tenant.tenantId }).first('max_transaction_amount')).toEqual({
      max_transaction_amount: '750',
    });
    expect((await floatDeposit(tenant, '500.01')).status).toBe(201);
  });
});

describe('depositedBy of a float deposit', () => {
  let tenant: WithdrawalTenant;
  let stranger: WithdrawalTenant;

  beforeAll(async () => {
    [tenant, stranger] = await Promise.all([harness.newTenant(), harness.newTenant()]);
  });

  it.each([
    ['an id that is no member', () => `tm_${randomUUID().replace(/-/g, '').slice(0, 26)}`],
    ["another tenant's member", () => stranger.maker],
    ['a member whose role may not move treasury money', () => tenant.observer],
  ])('refuses %s with 403 ACTOR_NOT_PERMITTED, storing nothing', async (_name, depositedBy) => {
    const before = await rowsOf('float_deposits', tenant.tenantId);
    const refused = expectError(await floatDeposit(tenant, '10.00', { depositedBy: depositedBy() }), 403, 'ACTOR_NOT_PERMITTED');
    expect(refused.details).toMatchObject({ requiredScope: 'treasury:write' });
    expect(await rowsOf('float_deposits', tenant.tenantId)).toBe(before);
  });

  it('records an active member allowed to move treasury money as the depositor', async () => {
    const created = await floatDeposit(tenant, '10.00', { depositedBy: tenant.maker });
    expect(created.status).toBe(201);
    const deposit = floatDepositSchema.parse(created.body);
    expect(deposit).toMatchObject({ depositedBy: tenant.maker, status: 'completed' });
    expect(
      await harness.ledgerDb('journal_entries').where({ reference_type: 'float_deposit', reference_id: deposit.id }).first('id'),
    ).toEqual({ id: deposit.journalEntryId });
  });
});
