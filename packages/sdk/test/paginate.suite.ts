import { paginate, paginateItems, WalletClient } from '../src';
import { auditEvent } from './fixtures';
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

describe('paginate', () => {
  it('follows nextCursor page by page, keeping the filters', async () => {
    server.script(
      { status: 200, body: { data: [auditEvent('evt_5'), auditEvent('evt_4')], nextCursor: 'c2' } },
      { status: 200, body: { data: [auditEvent('evt_3'), auditEvent('evt_2')], nextCursor: 'c3' } },
      { status: 200, body: { data: [auditEvent('evt_1')], nextCursor: null } },
    );
    const pages: string[][] = [];
    for await (const page of paginate(client.auditEvents.list, { limit: 2, targetType: 'api_key' }))
      pages.push(page.data.map((event) => event.id));

    expect(pages).toEqual([['evt_5', 'evt_4'], ['evt_3', 'evt_2'], ['evt_1']]);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/v1/team/audit-events?limit=2&targetType=api_key',
      '/v1/team/audit-events?limit=2&targetType=api_key&cursor=c2',
      '/v1/team/audit-events?limit=2&targetType=api_key&cursor=c3',
    ]);
  });

  it('yields items one at a time, for lists with path parameters too', async () => {
    const line = (id: string) => ({
      journalEntryId: id,
      kind: 'transfer',
      direction: 'CR',
      amount: '5.00',
      balanceAfter: '10.00',
      createdAt: '2026-11-22T10:00:00.000Z',
    });
    server.script(
      { status: 200, body: { data: [line('je_2')], nextCursor: 'next' } },
      { status: 200, body: { data: [line('je_1')], nextCursor: null } },
    );
    const ids: string[] = [];
    for await (const entry of paginateItems(
      (query: { limit?: number; cursor?: string } | undefined, options) => client.ledger.walletEntries('wl_1', query, options),
      { limit: 1 },
    )) {
      ids.push(entry.journalEntryId);
    }
    expect(ids).toEqual(['je_2', 'je_1']);
    expect(server.requests[1]?.url).toBe('/v1/ledger/wallets/wl_1/entries?limit=1&cursor=next');
  });

  it('stops on a cursor it has already followed instead of looping', async () => {
    server.script({ status: 200, body: { data: [], nextCursor: 'same' } }, { status: 200, body: { data: [], nextCursor: 'same' } });
    const walk = async () => {
      for await (const _page of paginate(client.auditEvents.list)) {
        // only walking
      }
    };
    await expect(walk()).rejects.toThrow(/twice/);
    expect(server.requests).toHaveLength(2);
  });
});
