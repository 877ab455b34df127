import fc from 'fast-check';
import { advanceHighWater, createDb, type Db, type HighWater, NO_HIGH_WATER, snapshotBounds, type Tx } from '@wallet/kit';
import { createTestDatabase, waitFor } from '@wallet/kit/testing';

/**
 * The marks reconciliation moves over bigserial sequences, against real PostgreSQL transactions
 * committing out of seq order.
 */
describe('reconciliation high-water marks', () => {
  let db: Db;

  beforeAll(async () => {
    db = createDb(await createTestDatabase('high_water'), { applicationName: 'kit-high-water-test' });
    await db.raw('CREATE TABLE rows (seq bigserial PRIMARY KEY, label text NOT NULL)');
  });

  afterAll(async () => {
    await db.destroy();
  });

  /** One run: what it reads after the mark in one snapshot, and where the mark then moves. */
  async function run(mark: HighWater): Promise<{ read: string[]; mark: HighWater }> {
    return db.transaction(
      async (tx) => {
        const snapshot = await snapshotBounds(tx);
        const rows: Array<{ seq: string; label: string }> = (
          await tx.raw('SELECT seq::text AS seq, label FROM rows WHERE seq > ? ORDER BY seq', [mark.verifiedSeq])
        ).rows;
        const topSeq = rows.reduce((top, row) => (BigInt(row.seq) > BigInt(top) ? row.seq : top), mark.verifiedSeq);
        return { read: rows.map((row) => row.label), mark: advanceHighWater(mark, { topSeq, snapshot }) };
      },
      { isolationLevel: 'repeatable read' },
    );
  }

  /** A writer that takes its xid first (as a posting locks its accounts), then its seq, and commits when told. */
  async function slowWriter(label: string): Promise<{ commit: () => Promise<void> }> {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const done = db.transaction(async (tx: Tx) => {
      await tx.raw('SELECT pg_current_xact_id()');
      await tx.raw('INSERT INTO rows (label) VALUES (?)', [label]);
      inserted();
      await released;
    });
    await ready;
    return {
      commit: async () => {
        release();
        await done;
      },
    };
  }

  it('never moves past a row a running transaction commits later with a lower seq', async () => {
    let mark = (await run(NO_HIGH_WATER)).mark;
    const slow = await slowWriter('slow');
    await db('rows').insert({ label: 'fast' });
    const first = await run(mark);
    expect(first.read).toEqual(['fast']);
    mark = first.mark;
    await slow.commit();
    // The slow row has the lower seq but committed after the run saw the fast one: still read.
    const second = await run(mark);
    expect(second.read).toContain('slow');
    mark = second.mark;
    // Once every transaction running then (in any database of the cluster) has ended, the mark moves past both.
    await waitFor(
      async () => {
        const next = await run(mark);
        mark = next.mark;
        return next.read.length === 0 ? true : undefined;
      },
      { what: 'the mark to move past both rows', intervalMs: 50 },
    );
  });

  it('moves only forward, to a seq a run saw, and never past what it is held below', () => {
    const seq = fc.bigInt({ min: 0n, max: 1_000_000n }).map(String);
    fc.assert(
      fc.property(seq, seq, seq, seq, seq, fc.option(seq, { nil: null }), (verified, seen, seenXmax, top, xmin, holdBelow) => {
        const previous = { verifiedSeq: verified, seenSeq: seen, seenXmax };
        const xmax = (BigInt(xmin) + 5n).toString();
        for (const snapshot of [
          { xmin, xmax },
          { xmin, xmax: xmin },
        ]) {
          const next = advanceHighWater(previous, { topSeq: top, snapshot, holdBelow });
          expect(BigInt(next.verifiedSeq) >= BigInt(verified)).toBe(true);
          expect([verified, seen, top, ...(holdBelow === null ? [] : [(BigInt(holdBelow) - 1n).toString()])]).toContain(next.verifiedSeq);
          if (holdBelow !== null && BigInt(next.verifiedSeq) > BigInt(verified))
            expect(BigInt(next.verifiedSeq) < BigInt(holdBelow)).toBe(true);
          expect(next.seenXmax).toBe(snapshot.xmax);
        }
      }),
    );
  });
});
