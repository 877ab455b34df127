import amqp from 'amqplib';
import { TOPOLOGY, type TenantEventV1 } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { depositCommand, entrySeqOf, type LedgerHarness, newTenantId, startLedgerHarness, transferCommand } from './support';

describe('ledger reads', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    ledger = await startLedgerHarness();
  });
  afterAll(async () => {
    await ledger.close();
  });

  describe('tenant isolation', () => {
    const tenantA = newTenantId();
    const tenantB = newTenantId();
    let entryOfB: string;
    beforeAll(async () => {
      await ledger.client.request(depositCommand({ tenantId: tenantA }, 'wl_a1', '10.00'));
      await ledger.client.request(depositCommand({ tenantId: tenantA, environment: 'live' }, 'wl_a_live', '99.00'));
      entryOfB = (await ledger.client.request(depositCommand({ tenantId: tenantB }, 'wl_b1', '20.00'))).journalEntryId as string;
    });

    it("never shows tenant B's entries to tenant A's token", async () => {
      const page = await ledger.get('/v1/journal', { tenantId: tenantA });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeGreaterThan(0);
      expect(page.body.data.every((entry: { tenantId: string }) => entry.tenantId === tenantA)).toBe(true);
      expect((await ledger.get(`/v1/journal/${entryOfB}`, { tenantId: tenantA })).status).toBe(404);
      expect((await ledger.get('/v1/ledger/wallets/wl_b1/entries', { tenantId: tenantA })).body.error.code).toBe('WALLET_NOT_FOUND');
      const accounts = await ledger.get('/v1/ledger/accounts', { tenantId: tenantA });
      expect(accounts.body.data.map((account: { walletId: string | null }) => account.walletId)).not.toContain('wl_b1');
    });

    it('never shows live entries to a test token, nor test entries to a live token', async () => {
      const test = await ledger.get('/v1/journal', { tenantId: tenantA, environment: 'test' });
      const live = await ledger.get('/v1/journal', { tenantId: tenantA, environment: 'live' });
      expect(test.body.data.map((entry: { environment: string }) => entry.environment)).toEqual(['test']);
      expect(live.body.data.map((entry: { environment: string }) => entry.environment)).toEqual(['live']);
      expect((await ledger.get('/v1/ledger/wallets/wl_a_live/entries', { tenantId: tenantA, environment: 'test' })).status).toBe(404);
    });

    it('refuses reads without an internal token', async () => {
      const response = await fetch(`http://127.0.0.1:${ledger.service.port}/v1/journal`);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_INTERNAL_TOKEN');
    });
  });

  it('pages the journal newest first with filters and an opaque cursor', async () => {
    const tenantId = newTenantId();
    for (let index = 0; index < 5; index += 1) await ledger.client.request(depositCommand({ tenantId }, 'wl_j', '1.00'));
    await ledger.client.request(transferCommand({ tenantId }, 'wl_j', 'wl_k', '2.00'));
    const first = await ledger.get('/v1/journal?limit=4', { tenantId });
    expect(first.body.data).toHaveLength(4);
    expect(first.body.data[0].kind).toBe('transfer');
    const second = await ledger.get(`/v1/journal?limit=4&cursor=${first.body.nextCursor}`, { tenantId });
    expect(second.body.data).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
    const ids = [...first.body.data, ...second.body.data].map((entry: { id: string }) => entry.id);
    expect(new Set(ids).size).toBe(6);
    expect((await ledger.get('/v1/journal?kind=transfer', { tenantId })).body.data).toHaveLength(1);
    expect((await ledger.get('/v1/journal?walletId=wl_k', { tenantId })).body.data).toHaveLength(1);
    expect((await ledger.get('/v1/journal?accountName=momo-float:mtn', { tenantId })).body.data).toHaveLength(5);
    expect((await ledger.get('/v1/journal?from=2999-01-01T00:00:00.000Z', { tenantId })).body.data).toHaveLength(0);
    const bad = await ledger.get('/v1/journal?cursor=not-a-cursor', { tenantId });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_CURSOR');
    expect((await ledger.get('/v1/journal?limit=500', { tenantId })).body.error.code).toBe('VALIDATION_ERROR');
  });

  it("gives a wallet's statement with the running balance after each line", async () => {
    const tenantId = newTenantId();
    await ledger.client.request(depositCommand({ tenantId }, 'wl_s', '10.00'));
    await ledger.client.request(transferCommand({ tenantId }, 'wl_s', 'wl_t', '3.00', { fee: '0.50' }));
    const statement = await ledger.get('/v1/ledger/wallets/wl_s/entries', { tenantId });
    expect(
      statement.body.data.map((line: { direction: string; amount: string; balanceAfter: string }) => [
        line.direction,
        line.amount,
        line.balanceAfter,
      ]),
    ).toEqual([
      ['DR', '0.50', '6.50'],
      ['DR', '3.00', '7.00'],
      ['CR', '10.00', '10.00'],
    ]);
  });

  it('reports reconciliation checks 1 and 2 as ok, for a tenant and across tenants', async () => {
    const tenant = await ledger.get('/v1/ledger/reconciliation', { tenantId: newTenantId() });
    expect(tenant.body).toMatchObject({
      status: 'ok',
      checks: [
        { name: 'account_balances_match_lines', status: 'ok' },
        { name: 'entries_balance', status: 'ok' },
      ],
    });
    const system = await ledger.get('/v1/system/ledger/reconciliation', { tenantId: null });
    expect(system.body.status).toBe('ok');
  });

  it('finds a materialized balance that drifted from its lines', async () => {
    const tenantId = newTenantId();
    await ledger.client.request(depositCommand({ tenantId }, 'wl_drift', '10.00'));
    await ledger.db('accounts').where({ tenant_id: tenantId, wallet_id: 'wl_drift' }).update({ balance: '11' });
    const result = await ledger.get('/v1/ledger/reconciliation', { tenantId });
    expect(result.body.status).toBe('mismatch');
    expect(result.body.checks[0].mismatches).toEqual([
      expect.objectContaining({ accountName: 'wallet:owner-wl_drift', materializedBalance: '11.00', sumOfLines: '10.00' }),
    ]);
    await ledger.db('accounts').where({ tenant_id: tenantId, wallet_id: 'wl_drift' }).update({ balance: '10' });
  });

  it('finds a journal line whose account is missing', async () => {
    const tenantId = newTenantId();
    const entryId = (await ledger.client.request(depositCommand({ tenantId }, 'wl_orphan', '1.00'))).journalEntryId as string;
    const entrySeq = await entrySeqOf(ledger.db, entryId);
    await ledger
      .db('journal_lines')
      .insert({ entry_seq: entrySeq, line_no: 99, account_num: '999999999', direction: 'DR', amount: '0.01', balance_after: '0' });
    const result = await ledger.get('/v1/ledger/reconciliation', { tenantId });
    expect(result.body.checks[1].mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ journalEntryId: entryId, accountNum: '999999999', problem: 'line without account' }),
      ]),
    );
    await ledger.db('journal_lines').where({ entry_seq: entrySeq, line_no: 99 }).delete();
  });

  it('provisions the system accounts of every allowed currency on tenant.created and tenant.updated, once', async () => {
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createConfirmChannel();
    const tenantId = newTenantId();
    const event: TenantEventV1 = {
      type: 'tenant.created.v1',
      messageId: `msg_${tenantId}`,
      tenantId,
      name: 'Acme',
      slug: 'acme',
      config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX', 'KES'], maxTransactionAmount: '1000000' },
      occurredAt: new Date().toISOString(),
    };
    const publish = async (body: TenantEventV1, routingKey: string): Promise<void> => {
      channel.publish(TOPOLOGY.identityEvents.exchange, routingKey, Buffer.from(JSON.stringify(body)), { persistent: true });
      await channel.waitForConfirms();
    };
    await publish(event, TOPOLOGY.identityEvents.tenantCreatedRoutingKey);
    await publish(event, TOPOLOGY.identityEvents.tenantCreatedRoutingKey);
    const countAccounts = async (): Promise<number> =>
      Number((await ledger.db('accounts').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count'))[0]?.count);
    await waitFor(async () => ((await countAccounts()) === 32 ? true : undefined), {
      what: '2 currencies x 2 environments x 8 system accounts',
    });
    const names = await ledger
      .db('accounts')
      .where({ tenant_id: tenantId, environment: 'live', currency_code: 'UGX' })
      .orderBy('name')
      .pluck('name');
    expect(names).toEqual([
      'asset:bank-clearing:UGX',
      'asset:cash-clearing:UGX',
      'asset:momo-clearing:UGX',
      'asset:pool:UGX',
      'payout-clearing',
      'platform-commission',
      'revenue:fees',
      'suspense',
    ]);
    await publish(
      {
        ...event,
        type: 'tenant.updated.v1',
        messageId: `msg_${tenantId}_2`,
        config: { ...event.config, allowedCurrencies: ['UGX', 'KES', 'USD'] },
      },
      TOPOLOGY.identityEvents.tenantUpdatedRoutingKey,
    );
    await waitFor(async () => ((await countAccounts()) === 48 ? true : undefined), { what: 'USD accounts' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countAccounts()).toBe(48);
    await connection.close();
  });
});
