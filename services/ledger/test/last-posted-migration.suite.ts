import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';

/**
 * The migration that gives accounts their last stamp, run on a database the earlier schema
 * already holds entries in, as the ledger finds it when it migrates on start.
 */
const LAST_POSTED_AT = '20261205120000_accounts_last_posted_at';
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('ledger_migration'), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

async function insertEntry(seqLabel: string, createdAt: string, lines: Array<{ accountId: string; lineNo: number }>): Promise<void> {
  const [entry] = await db('journal_entries')
    .insert({
      id: `je_${seqLabel}`,
      tenant_id: 'tn_MIGRATION',
      environment: 'test',
      kind: 'transfer',
      reference_type: 'transfer',
      reference_id: `tx_${seqLabel}`,
      command_id: `cmd-${seqLabel}`,
      created_at: createdAt,
    })
    .returning('seq');
  for (const line of lines) {
    await db('journal_lines').insert({
      entry_id: `je_${seqLabel}`,
      line_no: line.lineNo,
      entry_seq: entry.seq,
      account_id: line.accountId,
      direction: 'CR',
      amount: '1',
      currency_code: 'USD',
      balance_after: '1',
    });
  }
}

it("stamps every account with its newest line's time on a database with entries in it; an account without lines has none", async () => {
  await migrate(
    db,
    migrations.slice(
      0,
      migrations.findIndex((migration) => migration.name === LAST_POSTED_AT),
    ),
  );
  for (const id of ['acc_A', 'acc_B', 'acc_IDLE']) {
    await db('accounts').insert({
      id,
      tenant_id: 'tn_MIGRATION',
      environment: 'test',
      currency_code: 'USD',
      name: `revenue:${id}`,
      normal_side: 'CR',
    });
  }
  await insertEntry('1', '2030-01-01T00:00:01.000Z', [
    { accountId: 'acc_A', lineNo: 1 },
    { accountId: 'acc_B', lineNo: 2 },
  ]);
  // Stamped earlier but later in seq: the newest line is what the next batch must not go below.
  await insertEntry('2', '2030-01-01T00:00:00.500Z', [{ accountId: 'acc_A', lineNo: 1 }]);

  await migrate(db, migrations);

  const rows: Array<{ id: string; last_posted_at: Date | null }> = await db('accounts').orderBy('id').select('id', 'last_posted_at');
  expect(rows.map((row) => [row.id, row.last_posted_at?.toISOString() ?? null])).toEqual([
    ['acc_A', '2030-01-01T00:00:00.500Z'],
    ['acc_B', '2030-01-01T00:00:01.000Z'],
    ['acc_IDLE', null],
  ]);
});
