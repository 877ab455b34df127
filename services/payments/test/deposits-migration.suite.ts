import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';

/**
 * The migration that keys momo repeats by environment, run on a database the earlier schema
 * already holds deposits in, as a service finds it when it migrates on start.
 */
const PER_ENVIRONMENT = '20261228120000_momo_transaction_per_environment';
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('payments_migration'), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

async function insertWallet(id: string, environment: 'test' | 'live'): Promise<void> {
  await db('wallets').insert({ id, tenant_id: 'tn_MIGRATION', environment, owner_type: 'user', owner_id: id, currency_code: 'USD' });
}

async function insertMomo(
  id: string,
  walletId: string,
  environment: 'test' | 'live',
  transactionId: string,
  status = 'completed',
): Promise<void> {
  await db('deposits').insert({
    id,
    tenant_id: 'tn_MIGRATION',
    environment,
    wallet_id: walletId,
    amount: '5',
    currency_code: 'USD',
    source: 'momo',
    external_ref: transactionId,
    status,
    rejection_reason: status === 'rejected' ? 'INVALID_WEBHOOK_SIGNATURE' : null,
    provider_code: 'mtn',
  });
}

it('keys momo repeats by (tenant, environment, provider, transactionId) on a database with deposits in it', async () => {
  await migrate(
    db,
    migrations.filter((migration) => migration.name !== PER_ENVIRONMENT),
  );
  await insertWallet('wl_LIVE', 'live');
  await insertWallet('wl_TEST', 'test');
  await insertMomo('dep_1', 'wl_LIVE', 'live', 'tx-1');
  await insertMomo('dep_2', 'wl_LIVE', 'live', 'tx-2', 'rejected');
  await insertMomo('dep_3', 'wl_LIVE', 'live', 'tx-2');
  await insertMomo('dep_4', 'wl_TEST', 'test', 'tx-3');

  await migrate(db, migrations);

  const indexes: { rows: Array<{ indexname: string }> } = await db.raw(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'deposits' AND indexname LIKE 'deposits_momo%'`,
  );
  expect(indexes.rows.map((row) => row.indexname)).toEqual(['deposits_momo_transaction_per_environment']);
  // The same transaction in the other environment is a deposit of its own; in the same one, a repeat.
  await insertMomo('dep_5', 'wl_TEST', 'test', 'tx-1');
  await insertMomo('dep_6', 'wl_LIVE', 'live', 'tx-3');
  await expect(insertMomo('dep_7', 'wl_LIVE', 'live', 'tx-1')).rejects.toThrow(/deposits_momo_transaction_per_environment/);
  await expect(insertMomo('dep_8', 'wl_TEST', 'test', 'tx-3')).rejects.toThrow(/deposits_momo_transaction_per_environment/);
  expect(await db('deposits').count('* as n')).toEqual([{ n: '6' }]);
});
