import { randomUUID } from 'node:crypto';
import { errorBodySchema, floatDepositPageSchema, floatDepositSchema, journalEntrySchema, treasuryBalancesSchema } from '@wallet/contracts';
import { type Caller, type HttpResult, startTreasuryHarness, tenantToken, type TreasuryHarness } from './support';

/**
 * Real: PostgreSQL, RabbitMQ, the treasury service over HTTP and the ledger service beside it.
 * The ledger provisions each tenant's operating accounts from identity's event.
 */
let harness: TreasuryHarness;

beforeAll(async () => {
  harness = await startTreasuryHarness({ TREASURY_POSTING_REPLY_TIMEOUT_MS: '5000' });
});

afterAll(async () => {
  await harness?.close();
});

function expectError(result: HttpResult, status: number, code: string): void {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  errorBodySchema.parse(result.body);
}

async function journalEntry(caller: Caller, id: string) {
  const response = await fetch(`${harness.ledgerUrl}/v1/journal/${id}`, {
    headers: { 'x-internal-token': tenantToken(caller, ['ledger:read']) },
  });
  expect(response.status).toBe(200);
  return journalEntrySchema.parse(await response.json());
}

async function entriesFor(floatDepositId: string): Promise<number> {
  const [row] = await harness
    .ledgerDb('journal_entries')
    .where({ reference_type: 'float_deposit', reference_id: floatDepositId })
    .count<{ count: string }[]>('* as count');
  return Number(row?.count);
}

async function balances(caller: Caller) {
  const read = await harness.request(caller, 'GET', '/v1/admin/money/balances');
  expect(read.status).toBe(200);
  return treasuryBalancesSchema.parse(read.body).data;
}

describe('POST /v1/admin/money/float-deposits', () => {
  it('posts exactly DR asset:pool, CR asset:momo-clearing, and the balances show the operating float', async () => {
    const caller = await harness.newCaller();
    const created = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
      rawBody: '{"amount": 250.50, "currencyCode": "USD", "rail": "momo", "externalReference": "MOMO-REF-1", "note": "opening float"}',
    });
    expect(created.status).toBe(201);
    const deposit = floatDepositSchema.parse(created.body);
    expect(deposit).toMatchObject({
      amount: '250.50',
      currencyCode: 'USD',
      rail: 'momo',
      status: 'completed',
      externalReference: 'MOMO-REF-1',
      failureCode: null,
    });
    expect(deposit.id).toMatch(/^fd_/);

    const entry = await journalEntry(caller, deposit.journalEntryId as string);
    expect(entry.kind).toBe('tenant_float_deposit');
    expect(entry.reference).toEqual({ type: 'float_deposit', id: deposit.id });
    expect(entry.lines.map((line) => `${line.direction} ${line.accountName} ${line.amount} ${line.currencyCode}`).sort()).toEqual([
      'CR asset:momo-clearing:USD 250.50 USD',
      'DR asset:pool:USD 250.50 USD',
    ]);

    const rows = await balances(caller);
    expect(rows.find((row) => row.currencyCode === 'USD')).toEqual({
      currencyCode: 'USD',
      operatingFloat: '250.50',
      tenantFeeRevenue: '0.00',
      platformCommission: '0.00',
      suspense: '0.00',
      payoutClearing: '0.00',
    });
    expect(rows.find((row) => row.currencyCode === 'UGX')).toMatchObject({ operatingFloat: '0' });

    const read = await harness.request(caller, 'GET', `/v1/admin/money/float-deposits/${deposit.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(deposit);
    const list = floatDepositPageSchema.parse((await harness.request(caller, 'GET', '/v1/admin/money/float-deposits')).body);
    expect(list.data.map((each) => each.id)).toEqual([deposit.id]);
  });

  it('credits the clearing account of the rail named', async () => {
    const caller = await harness.newCaller();
    const created = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
      body: { amount: '5000', currencyCode: 'UGX', rail: 'bank' },
    });
    expect(created.status).toBe(201);
    const entry = await journalEntry(caller, created.body.journalEntryId);
    expect(entry.lines.find((line) => line.direction === 'CR')?.accountName).toBe('asset:bank-clearing:UGX');
    expect((await balances(caller)).find((row) => row.currencyCode === 'UGX')?.operatingFloat).toBe('5000');
  });

  it('moves money once when replayed with the same Idempotency-Key', async () => {
    const caller = await harness.newCaller();
    const key = `idem-${randomUUID()}`;
    const body = { amount: 100, currencyCode: 'USD', rail: 'momo' };
    const first = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', { body, key });
    const again = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', { body, key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await entriesFor(first.body.id)).toBe(1);
    expect(await harness.db('float_deposits').where({ tenant_id: caller.tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '1' },
    ]);
    expect((await balances(caller)).find((row) => row.currencyCode === 'USD')?.operatingFloat).toBe('100.00');

    const reused = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', { body: { ...body, amount: 200 }, key });
    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it.each([['1.005'], ['0'], ['-5'], ['1e3']])('refuses amount %s with 400 INVALID_AMOUNT and posts nothing', async (amount) => {
    const caller = await harness.newCaller();
    const refused = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
      rawBody: `{"amount": ${amount}, "currencyCode": "USD", "rail": "momo"}`,
    });
    expectError(refused, 400, 'INVALID_AMOUNT');
    expect(await harness.db('float_deposits').where({ tenant_id: caller.tenantId }).first()).toBeUndefined();
    expect(await harness.ledgerDb('journal_entries').where({ tenant_id: caller.tenantId }).first()).toBeUndefined();
  });

  it('requires an Idempotency-Key and a known rail', async () => {
    const caller = await harness.newCaller();
    expectError(
      await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
        body: { amount: 1, currencyCode: 'USD', rail: 'momo' },
        key: null,
      }),
      400,
      'IDEMPOTENCY_KEY_REQUIRED',
    );
    expectError(
      await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', { body: { amount: 1, currencyCode: 'USD', rail: 'pigeon' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('shows another tenant none of it', async () => {
    const owner = await harness.newCaller();
    const created = await harness.request(owner, 'POST', '/v1/admin/money/float-deposits', {
      body: { amount: 75, currencyCode: 'USD', rail: 'cash' },
    });
    expect(created.status).toBe(201);
    const intruder = await harness.newCaller();
    expectError(
      await harness.request(intruder, 'GET', `/v1/admin/money/float-deposits/${created.body.id}`),
      404,
      'FLOAT_DEPOSIT_NOT_FOUND',
    );
    expect((await harness.request(intruder, 'GET', '/v1/admin/money/float-deposits')).body.data).toEqual([]);
    expect((await balances(intruder)).find((row) => row.currencyCode === 'USD')?.operatingFloat).toBe('0.00');
    // The owner's other environment is another book too.
    const otherEnvironment: Caller = { ...owner, environment: 'test' };
    expectError(
      await harness.request(otherEnvironment, 'GET', `/v1/admin/money/float-deposits/${created.body.id}`),
      404,
      'FLOAT_DEPOSIT_NOT_FOUND',
    );
  });
});
