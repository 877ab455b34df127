import { randomUUID } from 'node:crypto';
import { errorBodySchema } from '@wallet/contracts';
import { systemSchedules } from './fees-support';
import { internalToken, type LedgerBackedHarness, newTenantId, startLedgerBackedHarness, tenantToken } from './support';

/**
 * Every creating POST of payments honours an Idempotency-Key when it is sent: a retry replays
 * the first answer (status and bytes), another request with the key is 422
 * IDEMPOTENCY_KEY_REUSED, and nothing is created twice. Real: payments and the ledger.
 */
let harness: LedgerBackedHarness;
let tenantId: string;
let walletId: string;
let tenantDraft: string;
let systemDraft: string;

beforeAll(async () => {
  harness = await startLedgerBackedHarness();
  tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
  const token = tenantToken(tenantId);
  walletId = (await harness.request('POST', '/v1/wallets', { token, body: { ownerType: 'user', ownerId: 'drafts', currencyCode: 'USD' } }))
    .body.id;
  tenantDraft = (await harness.request('POST', '/v1/admin/fee-schedules', { token, body: { name: 'Draft' } })).body.id;
  systemDraft = (await harness.request('POST', systemSchedules(tenantId), { body: { name: 'Draft', platformCommissionBps: 100 } })).body.id;
});

afterAll(async () => {
  await harness?.close();
});

interface Sent {
  status: number;
  text: string;
  replayed: string | null;
}

async function send(path: string, token: string, body: string, key: string, contentType = 'application/json'): Promise<Sent> {
  const response = await fetch(`http://127.0.0.1:${harness.service.port}${path}`, {
    method: 'POST',
    headers: { 'x-internal-token': token, 'content-type': contentType, 'idempotency-key': key },
    body,
  });
  return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
}

async function rows(table: string): Promise<number> {
  const [row] = await harness.db(table).count<Array<{ count: string }>>('* as count');
  return Number(row?.count);
}

interface CreateCase {
  name: string;
  path: () => string;
  token: () => string;
  /** A fresh request body each call: the retry resends the first one's bytes. */
  body: () => string;
  contentType?: string;
  table: string;
}

const unique = () => randomUUID().slice(0, 8);
let band = 0;
/** A rule band no other rule of the draft has: a second insert would be 409 OVERLAPPING_FEE_RULE, not a replay. */
const rule = () => {
  band += 10;
  return JSON.stringify({
    transactionType: 'transfer',
    currencyCode: 'USD',
    minAmount: `${band}.00`,
    maxAmount: `${band + 5}.00`,
    flatFee: '1.00',
  });
};

const CASES: CreateCase[] = [
  {
    name: 'POST /v1/wallets',
    path: () => '/v1/wallets',
    token: () => tenantToken(tenantId),
    body: () => JSON.stringify({ ownerType: 'user', ownerId: `user-${unique()}`, currencyCode: 'USD' }),
    table: 'wallets',
  },
  {
    name: 'POST /v1/admin/fee-schedules',
    path: () => '/v1/admin/fee-schedules',
    token: () => tenantToken(tenantId),
    body: () => JSON.stringify({ name: `Tenant ${unique()}` }),
    table: 'fee_schedules',
  },
  {
    name: 'POST /v1/admin/fee-schedules/{id}/rules',
    path: () => `/v1/admin/fee-schedules/${tenantDraft}/rules`,
    token: () => tenantToken(tenantId),
    body: rule,
    table: 'fee_rules',
  },
  {
    name: 'POST /v1/system/.../fee-schedules',
    path: () => systemSchedules(tenantId),
    token: () => internalToken(),
    body: () => JSON.stringify({ name: `Platform ${unique()}`, platformCommissionBps: 50 }),
    table: 'fee_schedules',
  },
  {
    name: 'POST /v1/system/.../fee-schedules/{id}/rules',
    path: () => `${systemSchedules(tenantId)}/${systemDraft}/rules`,
    token: () => internalToken(),
    body: rule,
    table: 'fee_rules',
  },
  {
    name: 'POST /v1/deposits/bank-slips',
    path: () => '/v1/deposits/bank-slips',
    token: () => tenantToken(tenantId),
    body: () => JSON.stringify({ walletId, amount: '10.00', currencyCode: 'USD', bankCode: 'stanbic', slipReference: `SLIP-${unique()}` }),
    table: 'deposits',
  },
  {
    name: 'POST /v1/bank-statements (JSON)',
    path: () => '/v1/bank-statements',
    token: () => tenantToken(tenantId),
    body: () =>
      JSON.stringify({
        bankCode: 'stanbic',
        currencyCode: 'USD',
        lines: [{ date: '2026-11-20', reference: `REF-${unique()}`, amount: '5.00' }],
      }),
    table: 'bank_statement_imports',
  },
  {
    name: 'POST /v1/bank-statements (CSV)',
    path: () => '/v1/bank-statements?bankCode=stanbic&currencyCode=USD',
    token: () => tenantToken(tenantId),
    body: () => `date,reference,amount\n2026-11-20,CSV-${unique()},7.00\n`,
    contentType: 'text/csv',
    table: 'bank_statement_imports',
  },
];

describe('Idempotency-Key on creations', () => {
  it.each(CASES.map((each) => [each.name, each] as const))(
    '%s: a retry replays the first answer and creates nothing more; another body is 422',
    async (_name, each) => {
      const key = `idem-${randomUUID()}`;
      const body = each.body();
      const before = await rows(each.table);
      const first = await send(each.path(), each.token(), body, key, each.contentType);
      expect(first.status).toBe(201);
      expect(await send(each.path(), each.token(), body, key, each.contentType)).toEqual({
        status: 201,
        text: first.text,
        replayed: 'true',
      });
      expect(await rows(each.table)).toBe(before + 1);

      const other = await send(each.path(), each.token(), each.body(), key, each.contentType);
      expect(`${other.status} ${errorBodySchema.parse(JSON.parse(other.text)).error.code}`).toBe('422 IDEMPOTENCY_KEY_REUSED');
      expect(await rows(each.table)).toBe(before + 1);
    },
  );

  it("keeps the platform operator's keys apart from a tenant's: the same key names two creations", async () => {
    const key = `idem-${randomUUID()}`;
    const system = await send(
      systemSchedules(tenantId),
      internalToken(),
      JSON.stringify({ name: 'Same key', platformCommissionBps: 0 }),
      key,
    );
    const own = await send('/v1/admin/fee-schedules', tenantToken(tenantId), JSON.stringify({ name: 'Same key' }), key);
    expect([system.status, own.status, own.replayed]).toEqual([201, 201, null]);
    expect(JSON.parse(own.text).id).not.toBe(JSON.parse(system.text).id);
  });
});
