import { walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { depositCommand, type LedgerBackedHarness, newTenantId, startLedgerBackedHarness, tenantToken } from './support';

/**
 * Real: PostgreSQL, RabbitMQ, the payments service over HTTP and the ledger beside it. The
 * harness's default token is the gateway's system token.
 */
let harness: LedgerBackedHarness;

beforeAll(async () => {
  harness = await startLedgerBackedHarness();
});

afterAll(async () => {
  await harness?.close();
});

async function newWallet(tenantId: string, environment: 'test' | 'live', ownerId: string) {
  const created = await harness.request('POST', '/v1/wallets', {
    token: tenantToken(tenantId, { environment }),
    body: { ownerType: 'user', ownerId, currencyCode: 'KES' },
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

describe('GET /v1/system/wallets/{walletId}', () => {
  it("shows any tenant's wallet with its tenant, environment and the ledger's balance", async () => {
    const tenantA = newTenantId();
    const tenantB = newTenantId();
    await harness.publishTenant(tenantA, { allowedCurrencies: ['KES'] });
    await harness.publishTenant(tenantB, { allowedCurrencies: ['KES'] });
    await newWallet(tenantA, 'live', 'owner-a');
    const wallet = await newWallet(tenantB, 'test', 'owner-b');
    await harness.ledger.commands.request(depositCommand(wallet, '1234.50'));

    const shown = await waitFor(
      async () => {
        const response = await harness.request('GET', `/v1/system/wallets/${wallet.id}`);
        return response.status === 200 && response.body.balance === '1234.50' ? response.body : undefined;
      },
      { what: 'the deposit in the system view' },
    );

    expect(walletSchema.parse(shown)).toEqual({ ...wallet, balance: '1234.50' });
    expect(shown).toMatchObject({ tenantId: tenantB, environment: 'test' });
    // The tenant's own read agrees with the operator's.
    const own = await harness.request('GET', `/v1/wallets/${wallet.id}`, { token: tenantToken(tenantB, { environment: 'test' }) });
    expect(own.body).toEqual(shown);
  });

  it('answers 404 WALLET_NOT_FOUND for an unknown wallet', async () => {
    const response = await harness.request('GET', '/v1/system/wallets/wl_00000000000000000000000000');
    expect(`${response.status} ${response.body.error.code}`).toBe('404 WALLET_NOT_FOUND');
  });

  it("refuses tenant tokens, even for the tenant's own wallet", async () => {
    const tenantId = newTenantId();
    await harness.publishTenant(tenantId, { allowedCurrencies: ['KES'] });
    const wallet = await newWallet(tenantId, 'live', 'owner-c');
    const response = await harness.request('GET', `/v1/system/wallets/${wallet.id}`, { token: tenantToken(tenantId) });
    expect(`${response.status} ${response.body.error.code}`).toBe('403 INSUFFICIENT_SCOPE');
  });
});
