import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { listTransfers } from '../src/features/transfers/transfers-store';

/** The migration that makes transfers' indexes smaller, run on a database that already holds transfers. */
const STORAGE = '20261230120000_transfers_storage';
const TENANT = 'tn_MIGRATION';
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('payments_transfers_storage'), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

async function insertTransfer(id: string, from: string, to: string): Promise<void> {
  await db('transfers').insert({
    id,
    tenant_id: TENANT,
    environment: 'test',
    from_wallet_id: from,
    to_wallet_id: to,
    currency_code: 'USD',
    amount: '1.00',
    fee: '0.00',
    commission: '0.00',
    platform_commission_bps: 0,
  });
}

async function indexDefinitions(): Promise<string[]> {
  const result: { rows: Array<{ indexdef: string }> } = await db.raw(
    `SELECT indexdef FROM pg_indexes WHERE tablename = 'transfers' ORDER BY indexname`,
  );
  return result.rows.map((row) => row.indexdef.replace(/^.* USING /, ''));
}

it('keeps every transfer listable, by scope and by wallet, with the smaller indexes', async () => {
  await migrate(
    db,
    migrations.filter((migration) => migration.name !== STORAGE),
  );
  for (const id of ['wl_A', 'wl_B', 'wl_C'])
    await db('wallets').insert({ id, tenant_id: TENANT, environment: 'test', owner_type: 'user', owner_id: id, currency_code: 'USD' });
  await insertTransfer('tx_1', 'wl_A', 'wl_B');
  await insertTransfer('tx_2', 'wl_B', 'wl_C');
  await insertTransfer('tx_3', 'wl_C', 'wl_A');

  await migrate(db, migrations);

  expect(await indexDefinitions()).toEqual([
    'btree (hashtextextended(from_wallet_id, (0)::bigint), seq)',
    'btree (id)',
    // A later migration's, for lists sorted by amount (docs/decisions/list-sorting.md).
    'btree (tenant_id, environment, amount, seq)',
    'btree (tenant_id, environment, seq)',
    'btree (hashtextextended(to_wallet_id, (0)::bigint), seq)',
  ]);
  const options: { rows: Array<{ reloptions: string[] | null }> } = await db.raw(
    `SELECT reloptions FROM pg_class WHERE relname = 'transfers'`,
  );
  expect(options.rows[0]?.reloptions).toEqual(['fillfactor=85']);

  await insertTransfer('tx_4', 'wl_A', 'wl_C');
  const scope = { tenantId: TENANT, environment: 'test' as const };
  const ids = async (walletId?: string) => (await listTransfers(db, scope, { walletId, limit: 10 })).rows.map((transfer) => transfer.id);
  expect(await ids()).toEqual(['tx_4', 'tx_3', 'tx_2', 'tx_1']);
  expect(await ids('wl_A')).toEqual(['tx_4', 'tx_3', 'tx_1']);
  expect(await ids('wl_B')).toEqual(['tx_2', 'tx_1']);
  expect(await ids('wl_NONE')).toEqual([]);
});
