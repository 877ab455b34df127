import fc from 'fast-check';
import { ID_PREFIXES, sortableId } from '@wallet/contracts';
import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { listEntriesAcrossTenants } from '../src/features/journal/journal-store';
import { findEntriesOfCommands, isCommandAlreadyPosted } from '../src/features/posting/posting-store';

/**
 * The journal's command and reference keys start with the time their id was made at, so new
 * entries land at the end of their indexes instead of on random pages (migration
 * 20270102120000_ordered_journal_keys); a command posted before the migration, keyed by its
 * MD5, is still found and still refused a second entry.
 */
const ORDERED = '20270102120000_ordered_journal_keys';
const TENANT = 'tn_ORDERED';
const DAY_MS = 86_400_000;
const OLD_TRANSFER = `tx_${sortableId(Date.now() - DAY_MS)}`;
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('ledger_ordered_keys'), { poolMax: 2 });
  await migrate(
    db,
    migrations.slice(
      0,
      migrations.findIndex((migration) => migration.name === ORDERED),
    ),
  );
  // An entry posted before the migration: keyed by the MD5 of a command made a day earlier.
  await db('journal_entries').insert({
    id: 'je_BEFORE',
    tenant_id: TENANT,
    environment: 'test',
    kind: 'transfer',
    reference_type: 'transfer',
    reference_id: OLD_TRANSFER,
    command_key: db.raw('md5(?)::uuid', [`${OLD_TRANSFER}:post`]),
    created_at: new Date(Date.now() - DAY_MS),
  });
  await migrate(db, migrations);
});
afterAll(async () => {
  await db?.destroy();
});

const kinds = fc.constantFrom(...(Object.values(ID_PREFIXES) as string[]));
const suffixes = fc.constantFrom('', ':post', ':credit', ':hold', ':settle');

async function keysOf(ids: readonly string[]): Promise<Array<{ command: string; reference: string }>> {
  const result = await db.raw(
    `SELECT command_key(id)::text AS command, reference_key(id)::text AS reference FROM unnest(?::text[]) WITH ORDINALITY AS u(id, n) ORDER BY n`,
    [[...ids]],
  );
  return result.rows as Array<{ command: string; reference: string }>;
}

it('orders both keys by the time their ids were made at, from the migration on', async () => {
  const start = Date.now() + 1_000;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 1_000 * DAY_MS }),
      fc.integer({ min: 1, max: 10 * DAY_MS }),
      kinds,
      kinds,
      suffixes,
      suffixes,
      async (offset, gap, kindA, kindB, suffixA, suffixB) => {
        const earlier = `${kindA}_${sortableId(start + offset)}`;
        const later = `${kindB}_${sortableId(start + offset + gap)}`;
        const [a, b] = await keysOf([earlier + suffixA, later + suffixB]);
        expect(a && b && a.command < b.command).toBe(true);
        const [refA, refB] = await keysOf([earlier, later]);
        expect(refA && refB && BigInt(refA.reference) < BigInt(refB.reference)).toBe(true);
      },
    ),
    { numRuns: 200 },
  );
});

it('gives the steps of one record, and records made in the same millisecond, keys of their own', async () => {
  const ms = Date.now() + 1_000;
  const ids = Object.values(ID_PREFIXES).flatMap((prefix) => Array.from({ length: 20 }, () => `${prefix}_${sortableId(ms)}`));
  const commands = ids.flatMap((id) => [id, `${id}:post`, `${id}:hold`, `${id}:settle`]);
  const keys = await keysOf(commands);
  expect(new Set(keys.map((key) => key.command)).size).toBe(commands.length);
  // 15 bits of hash: ids made in one millisecond seldom share a reference key, and one that does costs a row rechecked.
  expect(new Set((await keysOf(ids)).map((key) => key.reference)).size).toBeGreaterThan(ids.length * 0.95);
  expect(await keysOf(commands)).toEqual(keys);
});

it('still finds, and still refuses again, a command posted before the migration', async () => {
  const command = `${OLD_TRANSFER}:post`;
  const found = await db.transaction((tx) => findEntriesOfCommands(tx, [command]));
  expect(found.get(command)).toMatchObject({ entryId: 'je_BEFORE', referenceId: OLD_TRANSFER });
  const again = db('journal_entries').insert({
    id: 'je_AGAIN',
    tenant_id: TENANT,
    environment: 'test',
    kind: 'transfer',
    reference_type: 'transfer',
    reference_id: OLD_TRANSFER,
    command_key: db.raw('command_key(?)', [command]),
    created_at: new Date(),
  });
  expect(
    isCommandAlreadyPosted(
      await again.then(
        () => null,
        (error: unknown) => error,
      ),
    ),
  ).toBe(true);
});

it("finds a record's entries by reference, before the migration and after", async () => {
  const NEW_TRANSFER = `tx_${sortableId()}`;
  await db('journal_entries').insert({
    id: 'je_AFTER',
    tenant_id: TENANT,
    environment: 'test',
    kind: 'transfer',
    reference_type: 'transfer',
    reference_id: NEW_TRANSFER,
    command_key: db.raw('command_key(?)', [`${NEW_TRANSFER}:post`]),
    created_at: new Date(),
  });
  for (const [referenceId, entryId] of [
    [OLD_TRANSFER, 'je_BEFORE'],
    [NEW_TRANSFER, 'je_AFTER'],
    ['dep_without_time', null],
  ] as const) {
    const { entries } = await listEntriesAcrossTenants(db, { referenceId, limit: 10, examineMax: 10_000 });
    expect(entries.map((entry) => entry.id)).toEqual(entryId ? [entryId] : []);
  }
});
