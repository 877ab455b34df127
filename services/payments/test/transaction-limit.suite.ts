import { randomUUID } from 'node:crypto';
import { errorBodySchema, walletSchema } from '@wallet/contracts';
import { type IdentityPeer, startIdentity } from './deposits-support';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  startLedgerBackedHarness,
  tenantToken,
  type WalletRef,
} from './support';

/**
 * The tenant's maxTransactionAmount on every money movement payments makes: an inclusive
 * ceiling, `422 AMOUNT_EXCEEDS_LIMIT` with `details.maxTransactionAmount` above it, and nothing
 * stored or posted. Real: payments over HTTP, the ledger beside it and identity, which answers
 * for the payout's requester.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;
const CEILING = '1000000';

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness({ IDENTITY_URL: identity.url, PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '0' });
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

interface Tenant {
  tenantId: string;
  maker: string;
}

async function newTenant(): Promise<Tenant> {
  const tenantId = await identity.createTenant({ allowedCurrencies: ['USD'], maxTransactionAmount: CEILING });
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'], maxTransactionAmount: CEILING });
  const response = await fetch(`${identity.url}/v1/team`, {
    method: 'POST',
    headers: { 'x-internal-token': tenantToken(tenantId, { scopes: ['tenant:manage'] }), 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'maker',
      email: `maker-${randomUUID().slice(0, 8)}@example.com`,
      password: 'correct-horse-battery-9',
      orgRole: 'operator',
    }),
  });
  expect(response.status).toBe(201);
  return { tenantId, maker: ((await response.json()) as { id: string }).id };
}

function call(tenant: Tenant, path: string, body: unknown, key = `idem-${randomUUID()}`): Promise<HttpResult> {
  return harness.request('POST', path, { token: tenantToken(tenant.tenantId), headers: { 'Idempotency-Key': key }, body });
}

async function fundedWallet(tenant: Tenant, amount: string): Promise<WalletRef> {
  const created = await harness.request('POST', '/v1/wallets', {
    token: tenantToken(tenant.tenantId),
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
  });
  expect(created.status).toBe(201);
  const wallet = walletSchema.parse(created.body);
  if (amount !== '0') expect((await harness.ledger.commands.request(depositCommand(wallet, amount))).status).toBe('posted');
  return wallet;
}

function expectOverLimit(result: HttpResult, maxTransactionAmount = CEILING): void {
  expect(`${result.status} ${result.body?.error?.code}`).toBe('422 AMOUNT_EXCEEDS_LIMIT');
  expect(errorBodySchema.parse(result.body).error.details).toEqual({ maxTransactionAmount });
}

async function rowsOf(table: string, tenantId: string): Promise<number> {
  const [row] = await harness.db(table).where({ tenant_id: tenantId }).count<Array<{ count: string }>>('* as count');
  return Number(row?.count);
}

async function entriesOf(tenantId: string, referenceType: string): Promise<number> {
  const [row] = await harness.ledger
    .db('journal_entries')
    .where({ tenant_id: tenantId, reference_type: referenceType })
    .count<Array<{ count: string }>>('* as count');
  return Number(row?.count);
}

describe('maxTransactionAmount', () => {
  it('refuses a transfer one cent over the ceiling, storing nothing; the ceiling itself passes, and a raised ceiling applies at once', async () => {
    const tenant = await newTenant();
    const sender = await fundedWallet(tenant, '3000000.00');
    const receiver = await fundedWallet(tenant, '0');
    const body = (amount: string) => ({ fromWalletId: sender.id, toWalletId: receiver.id, amount, currencyCode: 'USD' });

    const key = `idem-${randomUUID()}`;
    const over = await call(tenant, '/v1/transfers', body('1000000.01'), key);
    expectOverLimit(over);
    expect(await rowsOf('transfers', tenant.tenantId)).toBe(0);
    // The refusal is the key's answer: a retry replays it.
    const replay = await call(tenant, '/v1/transfers', body('1000000.01'), key);
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([422, 'true', over.text]);

    expect((await call(tenant, '/v1/transfers', body('1000000.00'))).status).toBe(201);
    await harness.publishTenant(
      tenant.tenantId,
      { allowedCurrencies: ['USD'], maxTransactionAmount: '1000000.01' },
      { type: 'tenant.updated.v1' },
    );
    expect((await call(tenant, '/v1/transfers', body('1000000.01'))).status).toBe(201);
    expectOverLimit(await call(tenant, '/v1/transfers', body('1000000.02')), '1000000.01');
    expect(await rowsOf('transfers', tenant.tenantId)).toBe(2);
    expect(await entriesOf(tenant.tenantId, 'transfer')).toBe(2);
  });

  it('refuses a payout over the ceiling before holding anything; the ceiling itself is held', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '2000000.00');
    const payout = (amount: string) => ({
      walletId: wallet.id,
      amount,
      currencyCode: 'USD',
      payoutMethod: 'momo',
      destination: { phoneNumber: '+256700000001', network: 'mtn' },
      requestedBy: tenant.maker,
    });
    expectOverLimit(await call(tenant, '/v1/payouts', payout('1000000.01')));
    expect(await rowsOf('payout_cases', tenant.tenantId)).toBe(0);
    expect((await call(tenant, '/v1/payouts', payout('1000000.00'))).status).toBe(201);
    expect(await entriesOf(tenant.tenantId, 'payout_case')).toBe(1);
  });

  it('refuses a bank slip over the ceiling; the ceiling itself is recorded', async () => {
    const tenant = await newTenant();
    const wallet = await fundedWallet(tenant, '0');
    const slip = (amount: string) => ({
      walletId: wallet.id,
      amount,
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: `SLIP-${randomUUID().slice(0, 8)}`,
    });
    expectOverLimit(await call(tenant, '/v1/deposits/bank-slips', slip('1000000.01')));
    expect(await rowsOf('deposits', tenant.tenantId)).toBe(0);
    expect((await call(tenant, '/v1/deposits/bank-slips', slip('1000000.00'))).status).toBe(201);
  });
});
