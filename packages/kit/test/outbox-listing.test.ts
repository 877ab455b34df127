import { createDb, createOutboxTable, type Db, OUTBOX_TABLE, outboxListingStatement } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';

/**
 * A relay pass lists the oldest rows of a queue table that a burst has left mostly dead: 20,000
 * messages written, all but the last 300 published and deleted, the statistics taken then (as
 * autovacuum or the table maintenance would). The listing must read the index, not every page.
 */
let db: Db;
const LIVE = 300;

beforeAll(async () => {
  db = createDb(await createTestDatabase('kit_outbox_listing'), { poolMax: 2 });
  await createOutboxTable(db);
  await db.raw(
    `INSERT INTO ${OUTBOX_TABLE} (message_id, exchange, routing_key, type, payload)
     SELECT 'msg_' || g, 'wallet.ledger', 'ledger.command', 'ledger.command', repeat('x', 400) FROM generate_series(1, 20000) g`,
  );
  await db.raw(`DELETE FROM ${OUTBOX_TABLE} WHERE id <= (SELECT max(id) - ? FROM ${OUTBOX_TABLE})`, [LIVE]);
  await db.raw(`ANALYZE ${OUTBOX_TABLE}`);
});
afterAll(async () => {
  await db?.destroy();
});

async function explain(sql: string, bindings: readonly unknown[], options = ''): Promise<string> {
  const result = await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`EXPLAIN ${options} ${sql}`, bindings as never);
  return result.rows.map((row) => row['QUERY PLAN']).join('\n');
}

async function heapPages(): Promise<number> {
  const result = await db.raw<{ rows: Array<{ pages: number }> }>(`SELECT CAST(pg_relation_size(?) / current_setting('block_size')::int AS integer) AS pages`, [OUTBOX_TABLE]);
  return result.rows[0]!.pages;
}

it('plans the plain form as a scan of every page, the setting this test reproduces', async () => {
  expect(await heapPages()).toBeGreaterThan(1_000);
  expect(await explain(`SELECT message_id FROM ${OUTBOX_TABLE} ORDER BY id LIMIT CAST(? AS integer)`, [500 + LIVE])).toContain('Seq Scan');
});

it('lists the oldest rows through the primary key, reading a few pages of a table of more than a thousand', async () => {
  const listing = outboxListingStatement(500 + LIVE);
  const listed = await db.raw<{ rows: Array<{ message_id: string }> }>(listing.sql, listing.bindings as never);
  expect(listed.rows.map((row) => row.message_id)).toEqual(Array.from({ length: LIVE }, (_, index) => `msg_${20_000 - LIVE + 1 + index}`));
  expect((await db.raw(listing.sql, [2])).rows).toEqual([{ message_id: `msg_${20_000 - LIVE + 1}` }, { message_id: `msg_${20_000 - LIVE + 2}` }]);

  // The first pass over the dead entries marked them in the index; later passes skip them.
  const plan = await explain(listing.sql, listing.bindings, '(ANALYZE, BUFFERS)');
  expect(plan).toContain('Index Scan using outbox_pkey');
  expect(plan).not.toContain('Seq Scan');
  const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(plan);
  expect(Number(buffers?.[1]) + Number(buffers?.[2] ?? 0)).toBeLessThan(100);
});
