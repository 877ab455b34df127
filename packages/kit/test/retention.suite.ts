import {
  BackgroundPace,
  checkedTiming,
  createDb,
  createIndexConcurrently,
  createLogger,
  type Db,
  daysMs,
  idempotencyRetentionRule,
  migrate,
  purgePass,
  purgeRule,
  RetentionMetrics,
  type RetentionRule,
  startRetention,
  useIdempotencyTtlHours,
} from '@wallet/kit';
import { Registry } from 'prom-client';
import { createTestDatabase } from '@wallet/kit/testing';

const logger = createLogger({ service: 'kit-retention-test', level: 'silent' });

describe('retention', () => {
  let db: Db;

  beforeAll(async () => {
    db = createDb(await createTestDatabase('retention'), { applicationName: 'kit-retention-test', poolMax: 4 });
  });

  afterAll(async () => {
    await db.destroy();
  });

  /** A table of events with a BRIN index on its insertion time, as the inbox and processed_commands have. */
  async function eventsTable(name: string): Promise<RetentionRule> {
    await db.raw(`CREATE TABLE ${name} (id bigserial PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL)`);
    await db.raw(`CREATE INDEX ${name}_created_brin ON ${name} USING brin (created_at)`);
    return { table: name, column: 'created_at', windowMs: daysMs(30), index: { kind: 'brin', name: `${name}_created_brin` } };
  }

  async function insertAged(table: string, count: number, age: string, payloadBytes = 20): Promise<void> {
    await db.raw(
      `INSERT INTO ${table} (created_at, payload) SELECT now() - CAST(? AS interval), repeat('x', ?) FROM generate_series(1, ?)`,
      [age, payloadBytes, count],
    );
  }

  async function count(table: string): Promise<number> {
    const result = await db.raw<{ rows: Array<{ n: string }> }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(result.rows[0]?.n);
  }

  /** Summarizes every range the BRIN index has no summary for (the last, partial one too); how many there were. */
  async function summarizeNewValues(indexName: string): Promise<number> {
    const result = await db.raw<{ rows: Array<{ ranges: number }> }>(`SELECT brin_summarize_new_values(CAST(? AS regclass)) AS ranges`, [
      indexName,
    ]);
    return Number(result.rows[0]?.ranges);
  }

  async function heapPages(table: string): Promise<number> {
    const result = await db.raw<{ rows: Array<{ pages: string }> }>(
      `SELECT pg_relation_size(CAST(? AS regclass)) / current_setting('block_size')::bigint AS pages`,
      [table],
    );
    return Number(result.rows[0]?.pages);
  }

  it('deletes what is past the window in batches, each its own statement, and keeps the rest', async () => {
    const rule = { ...(await eventsTable('events_batches')), batchSize: 1_000 };
    await insertAged('events_batches', 2_500, '40 days');
    await insertAged('events_batches', 10, '29 days 23 hours');
    await insertAged('events_batches', 10, '0 seconds');
    const batches: number[] = [];
    expect(await purgeRule(db, rule, { onBatch: (deleted) => void batches.push(deleted) })).toBe(2_500);
    expect(batches).toEqual([1_000, 1_000, 500]);
    expect(await count('events_batches')).toBe(20);
    // A pass is bounded; what it leaves waits for the next one.
    await insertAged('events_batches', 2_500, '40 days');
    expect(await purgeRule(db, rule, { maxBatches: 2 })).toBe(2_000);
    expect(await purgeRule(db, rule)).toBe(500);
  });

  it('deletes every row past the window once when two instances purge the table at the same time, and keeps the rest', async () => {
    const rule = { ...(await eventsTable('events_two_instances')), batchSize: 200 };
    await insertAged('events_two_instances', 3_000, '40 days');
    await insertAged('events_two_instances', 25, '1 day');
    // Two services' runners on one database: each batch skips the rows the other has locked.
    const [first, second] = await Promise.all([purgeRule(db, rule), purgeRule(db, rule)]);
    expect((first ?? 0) + (second ?? 0) + (await purgeRule(db, rule))).toBe(3_000);
    expect(await count('events_two_instances')).toBe(25);
  });

  it('skips a row a writer holds instead of waiting for it, and takes it on a later pass', async () => {
    const rule = await eventsTable('events_locked');
    await insertAged('events_locked', 5, '40 days');
    const held = (await db('events_locked').orderBy('id').first('id')) as { id: string };
    let release: () => void = () => undefined;
    const releasing = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => undefined;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const writer = db.transaction(async (tx) => {
      await tx.raw('SELECT id FROM events_locked WHERE id = ? FOR UPDATE', [held.id]);
      locked();
      await releasing;
    });
    await isLocked;
    try {
      // Were it to wait for the writer, the lock timeout would fail it.
      const purged = await db.transaction(async (tx) => {
        await tx.raw(`SET LOCAL lock_timeout = '2s'`);
        return purgeRule(tx, rule);
      });
      expect(purged).toBe(4);
    } finally {
      release();
      await writer;
    }
    expect(await purgeRule(db, rule)).toBe(1);
  });

  it('desummarizes the BRIN ranges it deleted from, so vacuum summarizes them again from the rows left', async () => {
    const rule = await eventsTable('events_brin');
    // About 20 rows a page: several full 128-page ranges of old rows, then recent ones.
    await insertAged('events_brin', 8_000, '40 days', 350);
    await insertAged('events_brin', 100, '0 seconds', 350);
    await summarizeNewValues('events_brin_created_brin');
    const summarizedAgain = () => summarizeNewValues('events_brin_created_brin');
    expect(await summarizedAgain()).toBe(0);
    expect(await purgeRule(db, rule)).toBe(8_000);
    // Every range that held old rows lost its (now too wide) summary.
    expect(await summarizedAgain()).toBeGreaterThanOrEqual(3);
  });

  it('summarizes the complete BRIN ranges written since the last pass, so no pass scans them again, and leaves the partial last one', async () => {
    const rule = await eventsTable('events_written');
    // About 20 rows a page, all inside the window: three complete 128-page ranges and a partial one, none summarized (no vacuum).
    await insertAged('events_written', 8_000, '1 day', 350);
    const scannedBlocks = async () => {
      await db.raw('ANALYZE events_written');
      const result = await db.transaction(async (tx) => {
        await tx.raw('SET LOCAL enable_seqscan = off');
        return tx.raw<{ rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) SELECT ctid FROM events_written WHERE created_at < now() - interval '30 days'`,
        );
      });
      const plan = result.rows[0]?.['QUERY PLAN'][0]?.Plan ?? {};
      expect(plan['Node Type']).toBe('Bitmap Heap Scan');
      return Number(plan['Lossy Heap Blocks'] ?? 0) + Number(plan['Exact Heap Blocks'] ?? 0);
    };
    const pages = await heapPages('events_written');
    expect(pages).toBeGreaterThan(3 * 128);
    // The index was built on the empty table: its first range has a summary, which the inserts widened; the others have none.
    expect(await scannedBlocks()).toBe(pages - 128);

    expect(await purgeRule(db, rule)).toBe(0);
    // Only the partial range is left to every pass's scan.
    expect(await scannedBlocks()).toBe(pages % 128);
    // Written since: the next pass summarizes those ranges too, and stops at the first range it summarized before.
    await insertAged('events_written', 6_000, '1 day', 350);
    expect(await purgeRule(db, rule)).toBe(0);
    const grown = await heapPages('events_written');
    expect(await scannedBlocks()).toBe(grown % 128);
    expect(await summarizeNewValues('events_written_created_brin')).toBe(1);
  });

  it('runs every rule on its interval, joins a pass under way, and stops', async () => {
    const rule = await eventsTable('events_interval');
    await insertAged('events_interval', 3, '40 days');
    const retention = startRetention({ db, logger, rules: [{ ...rule, intervalMs: 20 }] });
    try {
      for (let waited = 0; waited < 5_000 && (await count('events_interval')) > 0; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await count('events_interval')).toBe(0);
    } finally {
      await retention.stop();
    }
    await insertAged('events_interval', 2, '40 days');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count('events_interval')).toBe(2);
    const [first, second] = await Promise.all([retention.runOnce(), retention.runOnce()]);
    expect(first).toEqual({ events_interval: 2 });
    expect(second).toEqual({ events_interval: 2 });
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs the first pass between half and all of firstPassDelayMs after the start, not a whole interval later', async () => {
    const rule = await eventsTable('events_first_pass');
    await insertAged('events_first_pass', 3, '40 days');
    const startedMs = Date.now();
    const retention = startRetention({ db, logger, rules: [{ ...rule, intervalMs: 3_600_000 }], firstPassDelayMs: 1_000 });
    try {
      await sleep(400);
      expect(await count('events_first_pass')).toBe(3);
      for (let waited = 0; waited < 5_000 && (await count('events_first_pass')) > 0; waited += 20) await sleep(20);
      expect(await count('events_first_pass')).toBe(0);
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(500);
    } finally {
      await retention.stop();
    }
    // A rule whose interval is shorter runs first after its interval.
    await insertAged('events_first_pass', 2, '40 days');
    const soon = startRetention({ db, logger, rules: [{ ...rule, intervalMs: 20 }], firstPassDelayMs: 3_600_000 });
    try {
      for (let waited = 0; waited < 5_000 && (await count('events_first_pass')) > 0; waited += 20) await sleep(20);
      expect(await count('events_first_pass')).toBe(0);
    } finally {
      await soon.stop();
    }
  });

  it('works off a backlog bigger than a pass in passes one after another, not one pass an interval', async () => {
    const rule = await eventsTable('events_backlog');
    // 200 rows a pass every 5 s would take four minutes over these; passes back to back take moments.
    await insertAged('events_backlog', 10_000, '40 days');
    const retention = startRetention({ db, logger, rules: [{ ...rule, batchSize: 50, intervalMs: 5_000 }], maxBatches: 4 });
    try {
      for (let waited = 0; waited < 30_000 && (await count('events_backlog')) > 0; waited += 100) await sleep(100);
      expect(await count('events_backlog')).toBe(0);
    } finally {
      await retention.stop();
    }
  });

  it('rests after each full batch as the background pace says while the service is busy, and not after the batch that finds the end', async () => {
    const rule = await eventsTable('events_paced');
    await insertAged('events_paced', 25, '40 days');
    const rests: number[] = [];
    // Busy whatever the traffic (from 0 requests a second), work a quarter of the time: each rest three times its batch.
    const pace = new BackgroundPace({ busyShare: 0.25, busyPerSecond: 0 }, async (ms) => void rests.push(ms));
    const pass = await purgePass(db, { ...rule, batchSize: 10 }, { pace });
    expect(pass).toEqual({ purged: 25, caughtUp: true });
    expect(rests).toHaveLength(2);
    // Each rest is three times its batch's time (the pace's own test holds the arithmetic).
    expect(rests.every((ms) => ms > 0)).toBe(true);
    expect(await purgePass(db, { ...rule, batchSize: 10 }, { pace })).toEqual({ purged: 0, caughtUp: true });
    await insertAged('events_paced', 30, '40 days');
    expect(await purgePass(db, { ...rule, batchSize: 10 }, { maxBatches: 2 })).toEqual({ purged: 20, caughtUp: false });
  });

  it("reports each table's window, rows purged, and how long a table has held rows past its window that the passes did not clear", async () => {
    const registry = new Registry();
    const metrics = new RetentionMetrics(registry);
    const behind = async () => {
      const metric = await registry.getSingleMetric('retention_behind_seconds')?.get();
      return Object.fromEntries((metric?.values ?? []).map((value) => [String(value.labels.table), value.value]));
    };
    const rule: RetentionRule = {
      table: 'events_metered',
      column: 'created_at',
      windowMs: daysMs(30),
      index: { kind: 'brin', name: 'events_metered_created_brin' },
      intervalMs: 50,
    };
    // The table does not exist yet: every pass fails.
    const retention = startRetention({ db, logger, rules: [rule], metrics });
    try {
      await sleep(1_200);
      expect((await behind()).events_metered).toBeGreaterThanOrEqual(1);
      await eventsTable('events_metered');
      await insertAged('events_metered', 7, '40 days');
      const purged = () => registry.getSingleMetricAsString('retention_rows_purged_total');
      for (let waited = 0; waited < 10_000 && !(await purged()).includes('} 7'); waited += 50) await sleep(50);
      expect(await purged()).toContain('retention_rows_purged_total{table="events_metered"} 7');
      expect(await behind()).toEqual({ events_metered: 0 });
      expect(await registry.getSingleMetricAsString('retention_window_seconds')).toContain(
        'retention_window_seconds{table="events_metered"} 2592000',
      );
    } finally {
      await retention.stop();
    }
  });

  it('keeps idempotency keys IDEMPOTENCY_KEY_TTL_HOURS by default, never under 24 hours', () => {
    try {
      useIdempotencyTtlHours(48);
      expect(checkedTiming({}).ttlHours).toBe(48);
      expect(idempotencyRetentionRule().lifetimeMs).toBe(48 * 3_600_000);
      expect(checkedTiming({ ttlHours: 30 }).ttlHours).toBe(30);
      expect(() => useIdempotencyTtlHours(12)).toThrow(/at least 24/);
      expect(checkedTiming({}).ttlHours).toBe(48);
    } finally {
      useIdempotencyTtlHours(24);
    }
  });

  it('builds a retention index concurrently in a migration of its own on a table that already holds rows, replacing an invalid leftover', async () => {
    const indexValid = async (name: string) => {
      const result = await db.raw<{ rows: Array<{ valid: boolean; unique: boolean }> }>(
        `SELECT i.indisvalid AS valid, i.indisunique AS unique FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ?`,
        [name],
      );
      return result.rows[0];
    };
    await migrate(db, [
      {
        name: 'create_legacy',
        up: async (knex) =>
          void (await knex.raw('CREATE TABLE legacy (id bigserial PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())')),
      },
    ]);
    await db.raw('INSERT INTO legacy (created_at) SELECT now() FROM generate_series(1, 100)');
    // A concurrent build that failed half way leaves an invalid index behind.
    await expect(db.raw('CREATE UNIQUE INDEX CONCURRENTLY legacy_created_brin ON legacy (created_at)')).rejects.toThrow(
      /could not create unique index/,
    );
    expect(await indexValid('legacy_created_brin')).toEqual({ valid: false, unique: true });
    await migrate(db, [
      { name: 'create_legacy', up: async () => undefined },
      {
        name: 'legacy_retention_index',
        transaction: false,
        up: (knex) => createIndexConcurrently(knex, 'legacy_created_brin', 'legacy USING brin (created_at)'),
      },
    ]);
    expect(await indexValid('legacy_created_brin')).toEqual({ valid: true, unique: false });
  });
});
