import { WalletClient, WalletRequestValidationError } from '../src';
import { startTestServer, type TestServer } from './http-test-server';

let server: TestServer;
let client: WalletClient;
beforeEach(async () => {
  server = await startTestServer();
  client = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'secret', apiKey: 'sk_test_abc' } });
});
afterEach(async () => {
  await server.close();
});

describe('balance as of a moment in the SDK', () => {
  it('sends `at` percent-encoded (an offset keeps its +) and refuses a zone-less one before sending', async () => {
    const answer = { walletId: 'wl_1', currencyCode: 'KES', balance: '12.50', at: '2026-11-25T10:00:00.000Z', journalEntryId: 'je_1' };
    server.script({ status: 200, body: answer });
    await expect(client.wallets.balanceAt('wl_1', '2026-11-25T13:00:00+03:00')).resolves.toEqual(answer);
    expect(server.requests[0]?.url).toBe('/v1/wallets/wl_1/balance?at=2026-11-25T13%3A00%3A00%2B03%3A00');
    await expect(client.wallets.balanceAt('wl_1', '2026-11-25T13:00:00')).rejects.toBeInstanceOf(WalletRequestValidationError);
    expect(server.requests).toHaveLength(1);
  });

  it('reads any ledger account on the system surface', async () => {
    const system = new WalletClient({ baseUrl: server.baseUrl, auth: { type: 'system', systemKey: 'sys' } });
    const answer = { accountId: 'acc_1', currencyCode: 'USD', balance: '-3.00', at: '2026-11-25T10:00:00.000Z', journalEntryId: null };
    server.script({ status: 200, body: answer });
    await expect(system.system.ledgerAccounts.balanceAt('acc_1', '2026-11-25T10:00:00Z')).resolves.toEqual(answer);
    expect(server.requests[0]?.url).toBe('/v1/system/ledger/accounts/acc_1/balance?at=2026-11-25T10%3A00%3A00Z');
  });
});
