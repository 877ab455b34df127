import amqp from 'amqplib';
import { type JournalEntry, ledgerFullRunSchema, reconciliationResultSchema, type TenantEventV1, TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase, waitFor } from '@wallet/kit/testing';
import { hashPartition } from '../src/features/partitions/partition-directory';
import {
  depositCommand,
  type LedgerHarness,
  ledgerInvariantViolations,
  newTenantId,
  postExpectingPosted,
  reconcileTenant,
  startLedgerHarness,
  transferCommand,
} from './support';

const PARTITIONS = 4;

/** A new tenant whose hashed partition is on `shard` (partitions map to shards by partition modulo 2). */
function tenantOnShard(shard: number): string {
  for (;;) {
    const tenantId = newTenantId();
    if (hashPartition(tenantId, PARTITIONS) % 2 === shard) return tenantId;
  }
}

async function count(db: Db, table: string, tenantId: string): Promise<number> {
  const [row] = await db(table).where({ tenant_id: tenantId }).count<Array<{ count: string }>>('* as count');
  return Number(row?.count ?? 0);
}

describe('ledger shards: partitions on two databases', () => {
  let ledger: LedgerHarness;
  let shard1: Db;
  const tenants = [tenantOnShard(0), tenantOnShard(1)];

  beforeAll(async () => {
    const shard1Url = await createTestDatabase('ledger-shard1');
    ledger = await startLedgerHarness({ instances: 2, env: { LEDGER_PARTITIONS: String(PARTITIONS), LEDGER_SHARDS: shard1Url } });
    shard1 = createDb(shard1Url, { poolMax: 2 });
    for (const tenantId of tenants) {
      await postExpectingPosted(ledger, depositCommand({ tenantId }, 'wl_a', '100.00'));
      for (let index = 0; index < 3; index += 1) await postExpectingPosted(ledger, transferCommand({ tenantId }, 'wl_a', 'wl_b', '7.50'));
    }
  });
  afterAll(async () => {
    await shard1?.destroy();
    await ledger?.close();
  });

  it('maps the partitions over the shards and writes each tenant on its partition’s shard alone, every entry balanced', async () => {
    const map = await ledger.db('ledger_partition_shards').orderBy('partition').pluck('shard');
    expect(map).toEqual([0, 1, 0, 1]);
    const [onHome, onShard1] = tenants as [string, string];
    expect([await count(ledger.db, 'journal_entries', onHome), await count(shard1, 'journal_entries', onHome)]).toEqual([4, 0]);
    expect([await count(ledger.db, 'journal_entries', onShard1), await count(shard1, 'journal_entries', onShard1)]).toEqual([0, 4]);
    expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
    expect(await ledgerInvariantViolations(shard1)).toEqual([]);
    // Shard 1's relay publishes its events: its outbox empties.
    await waitFor(
      async () => ((await shard1('outbox').count<Array<{ count: string }>>('* as count'))[0]?.count === '0' ? true : undefined),
      {
        what: "shard 1's outbox relayed",
      },
    );
  });

  it('answers a tenant’s reads and reconciliation from its shard', async () => {
    for (const tenantId of tenants) {
      const journal = await ledger.get('/v1/journal?limit=10', { tenantId });
      expect(journal.status).toBe(200);
      expect(journal.body.data).toHaveLength(4);
      const result = await reconcileTenant(ledger, tenantId);
      expect(result.status).toBe('ok');
      expect(result.coverage?.journal?.entries).toBe(4);
    }
  });

  it('pages the operator’s journal across both shards, each entry once, and reconciles every shard from its checkpoints', async () => {
    const seen: JournalEntry[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await ledger.get(`/v1/system/ledger/transactions?limit=3${query}`, { tenantId: null, surface: 'system' });
      expect(page.status).toBe(200);
      seen.push(...(page.body.data as JournalEntry[]));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(8);
    expect(new Set(seen.map((entry) => entry.id)).size).toBe(8);
    expect(new Set(seen.map((entry) => entry.tenantId))).toEqual(new Set(tenants));
    const one = await ledger.get(`/v1/system/ledger/transactions/${seen[0]?.id}`, { tenantId: null, surface: 'system' });
    expect(one.body.id).toBe(seen[0]?.id);
    // The tenants' own reconciliations moved their checkpoints: the operator's reads what came since, on both shards.
    for (const tenantId of tenants) await postExpectingPosted(ledger, transferCommand({ tenantId }, 'wl_b', 'wl_a', '1.25'));
    const systemCheck = async () =>
      reconciliationResultSchema.parse((await ledger.get('/v1/system/ledger/reconciliation', { tenantId: null, surface: 'system' })).body);
    const system = await systemCheck();
    expect(system.status).toBe('ok');
    // At least the two new entries; more when other sessions' transactions held a checkpoint back.
    expect(system.coverage?.journal?.entries).toBeGreaterThanOrEqual(2);
    // A balance put wrong on shard 1 is found by the operator's check, which reads every shard.
    const wallet = shard1('accounts').where({ tenant_id: tenants[1], wallet_id: 'wl_b' });
    await wallet.clone().increment('balance', 1);
    const found = await systemCheck();
    await wallet.clone().decrement('balance', 1);
    expect(found.status).toBe('mismatch');
    const balances = found.checks.find((check) => check.status === 'mismatch');
    expect(JSON.stringify(balances?.mismatches)).toContain(tenants[1]);
    expect((await systemCheck()).status).toBe('ok');
  });

  it('lists the entries naming records per scope, each scope read on its shard with that shard’s snapshot', async () => {
    const scopes = [...tenants, newTenantId()].map((tenantId) => ({ tenantId, environment: 'test', afterSeq: '0' }));
    const answer = await ledger.post(
      '/internal/v1/journal/references/after',
      { referenceType: 'transfer', scopes, limitPerScope: 100 },
      { tenantId: null, surface: 'system' },
    );
    expect(answer.status).toBe(200);
    const perTenant = (tenantId: string): number => answer.body.data.filter((entry: JournalEntry) => entry.tenantId === tenantId).length;
    expect(tenants.map(perTenant)).toEqual([4, 4]);
    expect(answer.body.scanned).toHaveLength(3);
    for (const scanned of answer.body.scanned) expect(scanned.snapshot).toEqual({ xmin: expect.any(String), xmax: expect.any(String) });
  });

  it('runs a full run across every tenant on every shard, answered as one', async () => {
    const started = await ledger.post('/internal/v1/reconciliation/full-runs', {}, { tenantId: null, surface: 'system' });
    expect(started.status).toBe(202);
    expect(started.body.id.split('.')).toHaveLength(2);
    const finished = await waitFor(async () => {
      const run = ledgerFullRunSchema.parse(
        (await ledger.get(`/internal/v1/reconciliation/full-runs/${started.body.id}`, { tenantId: null })).body,
      );
      return run.state === 'succeeded' || run.state === 'failed' ? run : undefined;
    });
    expect(finished).toMatchObject({ state: 'succeeded', result: { status: 'ok' }, records: null });
    expect(finished.progress?.entries).toBe(10);
  });

  it('provisions a tenant’s system accounts on its partition’s shard', async () => {
    const tenantId = tenantOnShard(1);
    const event: TenantEventV1 = {
      type: 'tenant.created.v1',
      messageId: `msg_${tenantId}`,
      tenantId,
      name: 'Sharded',
      slug: 'sharded',
      config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX'], maxTransactionAmount: '1000000' },
      occurredAt: new Date().toISOString(),
    };
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createConfirmChannel();
    channel.publish(TOPOLOGY.identityEvents.exchange, TOPOLOGY.identityEvents.tenantCreatedRoutingKey, Buffer.from(JSON.stringify(event)), {
      persistent: true,
    });
    await channel.waitForConfirms();
    await connection.close();
    await waitFor(async () => ((await count(shard1, 'accounts', tenantId)) === 16 ? true : undefined), { what: 'accounts on shard 1' });
    expect(await count(ledger.db, 'accounts', tenantId)).toBe(0);
    expect(await ledger.db('ledger_tenant_partitions').where({ tenant_id: tenantId }).first('partition')).toEqual({
      partition: hashPartition(tenantId, PARTITIONS),
    });
  });
});
