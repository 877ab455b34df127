import {
  alongOutboxIndexes,
  createDb,
  createOutboxTable,
  type Db,
  OUTBOX_TABLE,
  outboxDeleteStatement,
  outboxListingStatement,
  type SqlStatement,
  type Tx,
} from '@wallet/kit';
import { createTestDatabase, waitFor } from '@wallet/kit/testing';

/**
 * The relay's statements on an outbox a burst has left mostly dead, as seen under load at scale:
 * 20,000 messages written and all but 10 published and deleted, the statistics taken then (as
 * the table maintenance or autovacuum would), then 300 more written. The statistics call the
 * table tiny; its heap has hundreds of pages. The relay must still read the indexes.
 */
let db: Db;
let live: string[];
/** Confirmed messages whose rows one delete removes: 50 ms at 1,200 a second. */
const PUBLISHED = 60;

beforeAll(async () => {
  db = createDb(await createTestDatabase('kit_outbox_indexes'), { poolMax: 2 });
  await createOutboxTable(db);
  const write = (count: number) =>
    db.raw(
      `INSERT INTO ${OUTBOX_TABLE} (message_id, exchange, routing_key, type, payload)
       SELECT gen_random_uuid()::text, 'wallet.ledger', 'ledger.command', 'ledger.command', repeat('x', 100) FROM generate_series(1, ?) g`,
      [count],
    );
  await write(20_000);
  await db.raw(`DELETE FROM ${OUTBOX_TABLE} WHERE id <= (SELECT max(id) - 10 FROM ${OUTBOX_TABLE})`);
  await db.raw(`ANALYZE ${OUTBOX_TABLE}`);
  await write(300);
  live = (await db.raw<{ rows: Array<{ message_id: string }> }>(`SELECT message_id FROM ${OUTBOX_TABLE} ORDER BY id`)).rows.map(
    (row) => row.message_id,
  );
});
afterAll(async () => {
  await db?.destroy();
});

/** The plan of `statement` in the relay's settings. */
function plan(statement: SqlStatement, options = ''): Promise<string> {
  return alongOutboxIndexes(db, (tx) => explain(tx, statement, options));
}

async function explain(runner: Db, statement: SqlStatement, options = ''): Promise<string> {
  const result = await runner.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
    `EXPLAIN ${options} ${statement.sql}`,
    statement.bindings as never,
  );
  return result.rows.map((row) => row['QUERY PLAN']).join('\n');
}

it('plans the listing as a scan of every page outside the relay, the setting this test reproduces', async () => {
  const pages = await db.raw<{ rows: Array<{ pages: number }> }>(
    `SELECT CAST(pg_relation_size(?) / current_setting('block_size')::int AS integer) AS pages`,
    [OUTBOX_TABLE],
  );
  expect(pages.rows[0]!.pages).toBeGreaterThan(400);
  expect(await explain(db, outboxListingStatement(800))).toContain('Seq Scan');
});

it('lists the oldest rows through the primary key, reading a few pages', async () => {
  const listing = outboxListingStatement(800);
  const listed = await alongOutboxIndexes(db, (tx) =>
    tx.raw<{ rows: Array<{ message_id: string }> }>(listing.sql, listing.bindings as never),
  );
  expect(listed.rows.map((row) => row.message_id)).toEqual(live);

  // A pass over the dead entries marks them in the index, and later ones skip them. An entry is
  // marked only once no snapshot on the server can still see its row, so while another test's
  // transaction holds that horizon back a pass may leave some unmarked: the next one marks them.
  const pagesRead = (analyzed: string) => {
    const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(analyzed);
    return Number(buffers?.[1]) + Number(buffers?.[2] ?? 0);
  };
  const analyzed = await waitFor(
    async () => {
      const pass = await plan(listing, '(ANALYZE, BUFFERS)');
      return pagesRead(pass) < 100 ? pass : undefined;
    },
    { what: 'a listing that reads fewer than 100 pages', timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(analyzed).toContain('Index Scan using outbox_pkey');
  expect(analyzed).not.toMatch(/Seq Scan|Bitmap/);
  expect(pagesRead(analyzed)).toBeLessThan(100);
});

it('deletes published rows through the message-id index, and only those', async () => {
  const published = live.slice(0, PUBLISHED);
  // As a plain statement: every page.
  const plain = await heapUse((tx) => tx.raw(`DELETE FROM ${OUTBOX_TABLE} WHERE message_id = ANY(CAST(? AS text[]))`, [published]));
  expect(plain.seqScans).toBe(1);
  expect(plain.blocks).toBeGreaterThan(400);
  const deleted = outboxDeleteStatement(published);
  const use = await heapUse((tx) => tx.raw(deleted.sql, deleted.bindings as never));
  expect(use.seqScans).toBe(0);
  // The index's dead entries are marked by the first pass over them; a few blocks per row at worst.
  expect(use.blocks).toBeLessThan(4 * PUBLISHED);

  await db.raw(deleted.sql, deleted.bindings as never);
  const left = await db.raw<{ rows: Array<{ message_id: string }> }>(`SELECT message_id FROM ${OUTBOX_TABLE} ORDER BY id`);
  expect(left.rows.map((row) => row.message_id)).toEqual(live.slice(PUBLISHED));
});

/**
 * The sequential scans of the outbox and the heap blocks read (hit or not) by `run`, in a
 * transaction then rolled back. The counters are the backend's not yet reported, which no
 * report resets while the transaction is open: the difference is `run`'s.
 */
async function heapUse(run: (tx: Tx) => Promise<unknown>): Promise<{ seqScans: number; blocks: number }> {
  const tx = await db.transaction();
  const read = async () => {
    const result = await tx.raw<{ rows: Array<{ seqScans: number; blocks: number }> }>(
      `SELECT CAST(pg_stat_get_xact_numscans(CAST(? AS regclass)) AS integer) AS "seqScans", CAST(pg_stat_get_xact_blocks_fetched(CAST(? AS regclass)) AS integer) AS blocks`,
      [OUTBOX_TABLE, OUTBOX_TABLE],
    );
    return result.rows[0]!;
  };
  try {
    const before = await read();
    await run(tx);
    const after = await read();
    return { seqScans: after.seqScans - before.seqScans, blocks: after.blocks - before.blocks };
  } finally {
    await tx.rollback();
  }
}
