import fc from 'fast-check';
import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase, queryPlans } from '@wallet/kit/testing';
import { migrations } from '../migrations';
import { sealStampRanges, windowSeqs } from '../src/features/journal/journal-stamps';

/**
 * The span a time window is looked for in, against the stamp ranges read one by one: stamps that
 * follow seqs only roughly (and now and then an entry stamped a day early), sealed over several
 * rounds. Every sealed entry stamped in the window lies in the span, the span is exactly the
 * first range whose stamps reach the window's start to the last starting at or before its end,
 * and finding it reads two index entries, not the ranges.
 */
let db: Db;
const BASE_MS = Date.parse('2027-01-01T00:00:00Z');

beforeAll(async () => {
  db = createDb(await createTestDatabase('ledger_stamp_reach', { migratedFor: 'ledger' }), { poolMax: 2 });
});
afterAll(async () => {
  await db?.destroy();
});

interface Range {
  first_seq: string;
  last_seq: string;
  min_created_at: Date;
  max_created_at: Date;
  max_created_at_through: Date;
  min_created_at_from: Date;
}

async function reset(): Promise<void> {
  await db.raw('TRUNCATE journal_entries, journal_stamp_ranges CASCADE');
  await db('journal_stamp_seal').update({ sealed_through: 0, candidate_through: null, candidate_at: null });
}

async function insertEntries(entries: ReadonlyArray<{ seq: number; atMs: number }>): Promise<void> {
  await db('journal_entries').insert(
    entries.map(({ seq, atMs }) => ({
      seq,
      id: `je_${seq}`,
      tenant_id: 'tn_REACH',
      environment: 'test',
      kind: 'momo_deposit',
      reference_type: 'deposit',
      reference_id: `dep_${seq}`,
      command_key: db.raw(`md5(?)::uuid`, [String(seq)]),
      created_at: new Date(atMs),
    })),
  );
}

/** Two rounds: the first marks the newest seq, the second (no transaction older than that mark left) seals up to it. */
async function seal(): Promise<void> {
  await sealStampRanges(db);
  await sealStampRanges(db);
}

const batchesArbitrary = fc.array(
  fc.array(
    fc.record({
      gap: fc.integer({ min: 1, max: 3_000 }),
      jitterMs: fc.integer({ min: -5_000, max: 5_000 }),
      dayEarly: fc.integer({ min: 0, max: 19 }).map((draw) => draw === 0),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  { minLength: 1, maxLength: 5 },
);

it('finds every sealed entry of a window in a span bounded by the ranges that reach it', async () => {
  await fc.assert(
    fc.asyncProperty(
      batchesArbitrary,
      fc.array(fc.tuple(fc.option(fc.integer({ min: -90_000, max: 120_000 })), fc.option(fc.integer({ min: 0, max: 90_000 }))), {
        minLength: 1,
        maxLength: 6,
      }),
      async (batches, windows) => {
        await reset();
        const entries: Array<{ seq: number; atMs: number }> = [];
        let seq = 0;
        for (const batch of batches) {
          const added = batch.map((step) => {
            seq += step.gap;
            return { seq, atMs: BASE_MS + entries.length * 1_000 + step.jitterMs - (step.dayEarly ? 86_400_000 : 0) };
          });
          entries.push(...added);
          await insertEntries(added);
          await seal();
        }
        const ranges: Range[] = await db('journal_stamp_ranges').orderBy('last_seq').select('*');
        ranges.forEach((range, index) => {
          expect(range.max_created_at_through.getTime()).toBe(
            Math.max(...ranges.slice(0, index + 1).map((r) => r.max_created_at.getTime())),
          );
          expect(range.min_created_at_from.getTime()).toBe(Math.min(...ranges.slice(index).map((r) => r.min_created_at.getTime())));
        });
        const sealed = BigInt((await db('journal_stamp_seal').first(db.raw('sealed_through::text AS s'))).s);
        for (const [fromOffset, length] of windows) {
          const fromMs = fromOffset === null ? null : BASE_MS + fromOffset;
          const toMs = length === null ? null : (fromMs ?? BASE_MS) + length;
          const window = {
            from: fromMs === null ? undefined : new Date(fromMs).toISOString(),
            to: toMs === null ? undefined : new Date(toMs).toISOString(),
          };
          const { span } = await windowSeqs(db, window);
          const first = ranges.find((range) => fromMs === null || range.max_created_at.getTime() >= fromMs);
          const last = [...ranges].reverse().find((range) => toMs === null || range.min_created_at.getTime() <= toMs);
          const expected =
            first && last && BigInt(first.first_seq) <= BigInt(last.last_seq)
              ? { firstSeq: first.first_seq, lastSeq: last.last_seq }
              : null;
          expect(span).toEqual(expected);
          for (const entry of entries) {
            const inWindow = (fromMs === null || entry.atMs >= fromMs) && (toMs === null || entry.atMs <= toMs);
            if (!inWindow || BigInt(entry.seq) > sealed) continue;
            expect(span).not.toBeNull();
            expect(BigInt(entry.seq)).toBeGreaterThanOrEqual(BigInt(span?.firstSeq ?? 0));
            expect(BigInt(entry.seq)).toBeLessThanOrEqual(BigInt(span?.lastSeq ?? 0));
          }
        }
      },
    ),
    { numRuns: 40 },
  );
});

it('finds each end of the span with one index probe, however many ranges there are', async () => {
  await reset();
  // 20,000 ranges of one entry each, an hour apart in seqs of 4,096.
  await db.raw(`
    INSERT INTO journal_stamp_ranges (first_seq, last_seq, min_created_at, max_created_at, max_created_at_through, min_created_at_from)
    SELECT n * 4096, n * 4096, t, t, t, t FROM generate_series(1, 20000) AS n, LATERAL (SELECT timestamptz '2027-01-01' + n * interval '1 hour' AS t) s`);
  await db.raw('ANALYZE journal_stamp_ranges');
  const plans = await queryPlans(db, () => windowSeqs(db, { from: '2027-06-01T00:00:00.000Z', to: '2027-06-02T00:00:00.000Z' }));
  expect(plans).toHaveLength(1);
  expect(plans[0]).toContain('journal_stamp_ranges_through');
  expect(plans[0]).toContain('journal_stamp_ranges_from');
  expect(plans[0]).not.toMatch(/Seq Scan on journal_stamp_ranges/);
});

it('gives the ranges sealed before the migration their reach', async () => {
  const before = createDb(await createTestDatabase('ledger_stamp_reach_migration'), { poolMax: 1 });
  try {
    await migrate(
      before,
      migrations.slice(
        0,
        migrations.findIndex((migration) => migration.name === '20270107120000_journal_stamp_reach'),
      ),
    );
    const at = (hour: number) => new Date(Date.UTC(2027, 0, 1, hour));
    // The third range holds an entry stamped before the second's.
    await before('journal_stamp_ranges').insert([
      { first_seq: 1, last_seq: 4095, min_created_at: at(1), max_created_at: at(2) },
      { first_seq: 4096, last_seq: 8191, min_created_at: at(3), max_created_at: at(5) },
      { first_seq: 8192, last_seq: 12287, min_created_at: at(2), max_created_at: at(4) },
    ]);
    await migrate(before, migrations);
    const ranges: Range[] = await before('journal_stamp_ranges').orderBy('last_seq').select('*');
    expect(ranges.map((range) => [range.max_created_at_through, range.min_created_at_from])).toEqual([
      [at(2), at(1)],
      [at(5), at(2)],
      [at(5), at(2)],
    ]);
  } finally {
    await before.destroy();
  }
});
