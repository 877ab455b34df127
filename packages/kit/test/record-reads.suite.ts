import fc from 'fast-check';
import {
  camelCased,
  createDb,
  type Db,
  DEFAULT_LIST_EXAMINE_MAX,
  pageInOrder,
  recordReads,
  scopedRecords,
  useListExamineMax,
} from '@wallet/kit';
import { createTestDatabase, idsPageByPage } from '@wallet/kit/testing';

interface Thing {
  seq: string;
  id: string;
  tenantId: string;
  environment: string;
  colour: string;
  journalEntryId: string | null;
}

const COLUMNS = ['seq', 'id', 'tenant_id', 'environment', 'colour', 'journal_entry_id'];
const things = scopedRecords('things', COLUMNS, (row) => camelCased<Thing>(row));
const reads = recordReads(
  (db) => db('things as t').select(COLUMNS.map((column) => `t.${column}`)),
  't',
  (row: object) => camelCased<Thing>(row),
);
const scope = { tenantId: 'tn_a', environment: 'test' };

let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('kit_record_reads'), { applicationName: 'kit-record-reads-test' });
  await db.raw(
    'CREATE TABLE things (seq bigserial, id text PRIMARY KEY, tenant_id text NOT NULL, environment text NOT NULL, colour text NOT NULL, journal_entry_id text)',
  );
  const rows = [];
  for (let index = 1; index <= 7; index += 1)
    rows.push({
      id: `th_${index}`,
      tenant_id: 'tn_a',
      environment: 'test',
      colour: index % 2 === 0 ? 'red' : 'blue',
      journal_entry_id: index === 1 ? 'je_1' : null,
    });
  rows.push({ id: 'th_live', tenant_id: 'tn_a', environment: 'live', colour: 'red', journal_entry_id: null });
  rows.push({ id: 'th_other', tenant_id: 'tn_b', environment: 'test', colour: 'red', journal_entry_id: null });
  for (const row of rows) await db('things').insert(row);
});

afterAll(async () => {
  await db.destroy();
});

it('reads a row as its record, field for column', async () => {
  expect(await things.find(db, scope, 'th_1')).toEqual({
    seq: '1',
    id: 'th_1',
    tenantId: 'tn_a',
    environment: 'test',
    colour: 'blue',
    journalEntryId: 'je_1',
  });
  expect(await things.find(db, { ...scope, environment: 'live' }, 'th_1')).toBeNull();
});

it("pages a scope's records newest first, filtered where a filter is given, each page's cursor leading to the next", async () => {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 5; pages += 1) {
    const page = await pageInOrder(
      { cursor, limit: 3 },
      (after) => things.list(db, scope, { after, limit: 3 }, { tested: { colour: undefined } }),
      (thing) => thing.id,
    );
    ids.push(...page.data);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  expect(ids).toEqual(['th_7', 'th_6', 'th_5', 'th_4', 'th_3', 'th_2', 'th_1']);
  const red = await pageInOrder(
    { limit: 10 },
    (after) => things.list(db, scope, { after, limit: 10 }, { tested: { colour: 'red' } }),
    (thing) => thing.id,
  );
  expect(red).toEqual({ data: ['th_6', 'th_4', 'th_2'], nextCursor: null });
});

it('reads records by id within a scope or any, and a scope after a seq in seq order', async () => {
  expect((await reads.byIds(db, null, ['th_2', 'th_live', 'th_other', 'th_none'])).map((thing) => thing.id).sort()).toEqual([
    'th_2',
    'th_live',
    'th_other',
  ]);
  expect((await reads.byIds(db, scope, ['th_2', 'th_live', 'th_other'])).map((thing) => thing.id)).toEqual(['th_2']);
  expect(await reads.byIds(db, scope, [])).toEqual([]);
  expect((await reads.after(db, scope, '4', 2)).map((thing) => thing.id)).toEqual(['th_5', 'th_6']);
});

describe('a filter no index serves, tested on at most LIST_EXAMINE_MAX records a request', () => {
  const bounded = { tenantId: 'tn_bounded', environment: 'test' };
  afterEach(() => useListExamineMax(DEFAULT_LIST_EXAMINE_MAX));

  async function follow(colour: string, limit: number): Promise<{ ids: string[]; answers: number; pageSizes: number[] }> {
    const pages = await idsPageByPage((after) => things.list(db, bounded, { after, limit }, { tested: { colour } }), limit);
    return { ids: pages.flat(), answers: pages.length, pageSizes: pages.map((page) => page.length) };
  }

  it('answers a colour no recent record has with an empty page and a cursor, and finds it further back', async () => {
    await db('things').where({ tenant_id: bounded.tenantId }).delete();
    await db('things').insert([{ id: 'tb_old', tenant_id: bounded.tenantId, environment: 'test', colour: 'green' }]);
    for (let index = 1; index <= 10; index += 1)
      await db('things').insert({ id: `tb_${index}`, tenant_id: bounded.tenantId, environment: 'test', colour: 'blue' });
    useListExamineMax(4);
    const first = await pageInOrder(
      { limit: 5 },
      (after) => things.list(db, bounded, { after, limit: 5 }, { tested: { colour: 'green' } }),
      (thing) => thing.id,
    );
    expect(first.data).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    // Eleven records, four tested a request: the green one is in the third answer.
    expect(await follow('green', 5)).toEqual({ ids: ['tb_old'], answers: 3, pageSizes: [0, 0, 1] });
  });

  it('gives, cursor after cursor, exactly the matching records newest first, never a page over its limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('red', 'blue', 'green'), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('red', 'green'),
        async (colours, limit, examineMax, colour) => {
          await db('things').where({ tenant_id: bounded.tenantId }).delete();
          if (colours.length > 0)
            await db('things').insert(
              colours.map((each, index) => ({ id: `tp_${index}`, tenant_id: bounded.tenantId, environment: 'test', colour: each })),
            );
          useListExamineMax(examineMax);
          const { ids, pageSizes } = await follow(colour, limit);
          const expected = colours.flatMap((each, index) => (each === colour ? [`tp_${index}`] : [])).reverse();
          expect(ids).toEqual(expected);
          expect(Math.max(0, ...pageSizes)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 60 },
    );
  });
});
