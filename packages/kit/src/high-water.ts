import type { Db, Tx } from './db';

/**
 * How far a reconciliation run may trust a sequence (bigserial) it reads: a transaction still
 * running may commit a row with a lower seq than one already visible. A run records the highest
 * seq it saw and its snapshot's xmax; a later run whose snapshot xmin is past that xmax knows every
 * transaction then running has ended, so everything up to the seq seen then is final. A snapshot
 * with no transaction running at all makes everything it sees final at once. A writer takes its
 * xid (its first lock or write) before its row takes its seq, so a transaction starting later
 * writes above.
 */
export interface HighWater {
  /** Everything up to here is final and verified. */
  verifiedSeq: string;
  /** The highest seq the last run saw, and its snapshot's xmax. */
  seenSeq: string;
  seenXmax: string;
}

export interface SnapshotBounds {
  xmin: string;
  xmax: string;
}

export const NO_HIGH_WATER: HighWater = { verifiedSeq: '0', seenSeq: '0', seenXmax: '0' };

const max = (a: string, b: string): string => (BigInt(a) >= BigInt(b) ? a : b);
const min = (a: string, b: string): string => (BigInt(a) <= BigInt(b) ? a : b);

/** The transaction's snapshot bounds; in a repeatable-read transaction, call it first so it describes the snapshot the reads use. */
export async function snapshotBounds(db: Db | Tx): Promise<SnapshotBounds> {
  const result = await db.raw<{ rows: SnapshotBounds[] }>(
    'SELECT pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax FROM pg_current_snapshot() s',
  );
  const row = result.rows[0];
  if (!row) throw new Error('no snapshot');
  return row;
}

/**
 * Where the mark moves after a run that saw everything up to `topSeq` in `snapshot`. `holdBelow`:
 * the seq of the first thing found wrong (or still pending), which the mark stays below so the
 * next run sees it again.
 */
export function advanceHighWater(
  previous: HighWater,
  run: { topSeq: string; snapshot: SnapshotBounds; holdBelow?: string | null | undefined },
): HighWater {
  const { snapshot } = run;
  const top = max(run.topSeq, previous.verifiedSeq);
  let verifiedSeq = previous.verifiedSeq;
  if (snapshot.xmin === snapshot.xmax) verifiedSeq = top;
  else if (BigInt(snapshot.xmin) >= BigInt(previous.seenXmax)) verifiedSeq = max(previous.seenSeq, previous.verifiedSeq);
  if (run.holdBelow !== null && run.holdBelow !== undefined)
    verifiedSeq = max(previous.verifiedSeq, min(verifiedSeq, (BigInt(run.holdBelow) - 1n).toString()));
  return { verifiedSeq, seenSeq: top, seenXmax: snapshot.xmax };
}

/** Whether a run changed anything worth writing. */
export function highWaterMoved(previous: HighWater, next: HighWater): boolean {
  return (
    previous.verifiedSeq !== next.verifiedSeq ||
    previous.seenSeq !== next.seenSeq ||
    (next.seenSeq !== next.verifiedSeq && previous.seenXmax !== next.seenXmax)
  );
}
