import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { findEntriesOfCommands, isCommandAlreadyPosted } from '../src/features/posting/posting-store';
import { findEntry } from '../src/features/journal/journal-store';
import { lineAt } from '../src/features/accounts/balance-at-store';

/**
 * The migration that narrows the journal, run on a database the earlier schema already holds
 * entries in: every entry still reads back whole, its lines on the right accounts, and the
 * command that posted it still can never post again.
 */
const COMPACT = '20261230120000_compact_journal';
const TENANT = 'tn_COMPACT';
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('ledger_compact'), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

it('keeps every entry, line, account and command of an existing journal', async () => {
  await migrate(
    db,
    migrations.slice(
      0,
      migrations.findIndex((migration) => migration.name === COMPACT),
    ),
  );
  await db('accounts').insert([
    { id: 'acc_CASH', tenant_id: TENANT, environment: 'test', currency_code: 'USD', name: 'cash:bank', normal_side: 'DR', balance: '7.50' },
    {
      id: 'acc_WALLET',
      tenant_id: TENANT,
      environment: 'test',
      currency_code: 'USD',
      name: 'wallet:wl_A',
      wallet_id: 'wl_A',
      normal_side: 'CR',
      non_negative: true,
      balance: '7.50',
    },
  ]);
  const [entry] = await db('journal_entries')
    .insert({
      id: 'je_OLD',
      tenant_id: TENANT,
      environment: 'test',
      kind: 'deposit',
      reference_type: 'deposit',
      reference_id: 'dep_OLD',
      command_id: 'dep_OLD:post',
      correlation_id: 'corr',
      created_at: '2030-01-01T00:00:00.000Z',
    })
    .returning('seq');
  await db('journal_lines').insert([
    {
      entry_id: 'je_OLD',
      line_no: 1,
      entry_seq: entry.seq,
      account_id: 'acc_CASH',
      direction: 'DR',
      amount: '7.50',
      currency_code: 'USD',
      balance_after: '7.50',
    },
    {
      entry_id: 'je_OLD',
      line_no: 2,
      entry_seq: entry.seq,
      account_id: 'acc_WALLET',
      direction: 'CR',
      amount: '7.50',
      currency_code: 'USD',
      balance_after: '7.50',
    },
  ]);

  await migrate(db, migrations);

  expect(await findEntry(db, { tenantId: TENANT, environment: 'test' }, 'je_OLD')).toMatchObject({
    id: 'je_OLD',
    reference: { type: 'deposit', id: 'dep_OLD' },
    lines: [
      { accountId: 'acc_CASH', accountName: 'cash:bank', direction: 'DR', amount: '7.50', currencyCode: 'USD' },
      { accountId: 'acc_WALLET', accountName: 'wallet:wl_A', walletId: 'wl_A', direction: 'CR', amount: '7.50', currencyCode: 'USD' },
    ],
  });
  expect(await lineAt(db, 'acc_WALLET', '2030-01-01T00:00:01.000Z')).toEqual({
    journalEntryId: 'je_OLD',
    balanceAfter: '7.50',
    entrySeq: '1',
  });
  const found = await db.transaction((tx) => findEntriesOfCommands(tx, ['dep_OLD:post']));
  expect(found.get('dep_OLD:post')).toMatchObject({ entryId: 'je_OLD', referenceId: 'dep_OLD' });
  const again = db('journal_entries').insert({
    id: 'je_AGAIN',
    tenant_id: TENANT,
    environment: 'test',
    kind: 'deposit',
    reference_type: 'deposit',
    reference_id: 'dep_OLD',
    command_key: db.raw("md5('dep_OLD:post')::uuid"),
    created_at: '2030-01-02T00:00:00.000Z',
  });
  const refusal = await again.then(
    () => null,
    (error: unknown) => error,
  );
  expect(isCommandAlreadyPosted(refusal)).toBe(true);
});
