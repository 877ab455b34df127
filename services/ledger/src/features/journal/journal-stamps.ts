import { type Db, type Logger, registerQueryGauge, type Repeating, startRepeating } from '@wallet/kit';
import type { Registry } from 'prom-client';

/** Seqs per row of journal_stamp_ranges: a window is found to within this many entries at each end. */
const STAMP_RANGE_SEQS = 4096;
/** Seqs one round summarizes at most, so a round after a long pause (or a migrated journal) stays short. */
const SEAL_STEP_MAX = 1_000_000;

/**
 * The entries of the seqs after `?` up to `?`, summarized per run of STAMP_RANGE_SEQS seqs, with
 * the reach of each range's stamps (migration journal_stamp_reach): the latest stamp through it,
 * which the ranges before already give, and the earliest from it on, which it may lower for the
 * ranges before it (written in the same statement, the UPDATE sees only those).
 */
const SEAL_RANGES_SQL = `
  WITH runs AS (
    SELECT min(seq) AS first_seq, max(seq) AS last_seq, min(created_at) AS min_created_at, max(created_at) AS max_created_at
      FROM journal_entries WHERE seq > ? AND seq <= ? GROUP BY seq / ${STAMP_RANGE_SEQS}
  ), added AS (
    INSERT INTO journal_stamp_ranges (first_seq, last_seq, min_created_at, max_created_at, max_created_at_through, min_created_at_from)
    SELECT first_seq, last_seq, min_created_at, max_created_at,
           GREATEST(max(max_created_at) OVER (ORDER BY last_seq), (SELECT max(max_created_at_through) FROM journal_stamp_ranges)),
           min(min_created_at) OVER (ORDER BY last_seq DESC)
      FROM runs
  )
  UPDATE journal_stamp_ranges SET min_created_at_from = (SELECT min(min_created_at) FROM runs)
   WHERE min_created_at_from > (SELECT min(min_created_at) FROM runs)`;

interface SealRow {
  sealed_through: string;
  candidate_through: string | null;
  candidate_at: Date | null;
}

/**
 * One round of sealing. A seq is final once no transaction that could still write it is running:
 * seqs are handed out in order, so every seq up to the largest committed one was taken by a
 * transaction that had begun by then. The round records that largest seq with the time; a later
 * round, once no transaction of this database that began before that time is left, summarizes the
 * entries up to it into journal_stamp_ranges (their earliest and latest stamps per run of seqs).
 * Returns how far the ranges go. Concurrent rounds (several ledger instances) skip each other.
 */
export async function sealStampRanges(db: Db): Promise<string | null> {
  return db.transaction(async (tx) => {
    const seal: SealRow | undefined = await tx('journal_stamp_seal')
      .forUpdate()
      .skipLocked()
      .first(tx.raw('sealed_through::text'), tx.raw('candidate_through::text'), 'candidate_at');
    if (!seal) return null;
    let sealed = BigInt(seal.sealed_through);
    let candidate = seal.candidate_through === null ? null : BigInt(seal.candidate_through);
    if (candidate !== null && (await settledSince(tx, seal.candidate_at as Date))) {
      const through = candidate < sealed + BigInt(SEAL_STEP_MAX) ? candidate : sealed + BigInt(SEAL_STEP_MAX);
      await tx.raw(SEAL_RANGES_SQL, [sealed.toString(), through.toString()]);
      sealed = through;
      if (through === candidate) candidate = null;
    }
    let candidateAt = seal.candidate_at;
    if (candidate === null) {
      const newest: { seq: string | null; at: Date } = (
        await tx.raw(`SELECT (SELECT max(seq) FROM journal_entries)::text AS seq, clock_timestamp() AS at`)
      ).rows[0];
      candidate = newest.seq !== null && BigInt(newest.seq) > sealed ? BigInt(newest.seq) : null;
      candidateAt = candidate === null ? null : newest.at;
    }
    await tx('journal_stamp_seal').update({
      sealed_through: sealed.toString(),
      candidate_through: candidate?.toString() ?? null,
      candidate_at: candidateAt,
    });
    return sealed.toString();
  });
}

/** Whether every transaction of this database that began before `at` has ended (this one aside). */
async function settledSince(db: Db, at: Date): Promise<boolean> {
  const row: { settled: boolean } = (
    await db.raw(
      `SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start < ?) AS settled`,
      [at],
    )
  ).rows[0];
  return row.settled;
}

/**
 * The seqs a time window can have entries at: every seq after the sealed ones (their stamps are
 * not summarized yet), and among the sealed ones the span from the first range whose latest stamp
 * reaches the window's start to the last whose earliest stamp is at or before its end (null when
 * that is empty). Every range meeting the window is in it; each end is one index probe.
 */
export interface WindowSeqs {
  sealedThrough: string;
  span: { firstSeq: string; lastSeq: string } | null;
}

export async function windowSeqs(db: Db, window: { from?: string | undefined; to?: string | undefined }): Promise<WindowSeqs> {
  const row: { sealed_through: string; first_seq: string | null; last_seq: string | null } = (
    await db.raw(
      `SELECT s.sealed_through::text,
              (SELECT first_seq FROM journal_stamp_ranges WHERE max_created_at_through >= coalesce(?::timestamptz, '-infinity')
                ORDER BY max_created_at_through, last_seq LIMIT 1)::text AS first_seq,
              (SELECT last_seq FROM journal_stamp_ranges WHERE min_created_at_from <= coalesce(?::timestamptz, 'infinity')
                ORDER BY min_created_at_from DESC, last_seq DESC LIMIT 1)::text AS last_seq
         FROM journal_stamp_seal s`,
      [window.from ?? null, window.to ?? null],
    )
  ).rows[0];
  const { first_seq: firstSeq, last_seq: lastSeq } = row;
  return {
    sealedThrough: row.sealed_through,
    span: firstSeq !== null && lastSeq !== null && BigInt(firstSeq) <= BigInt(lastSeq) ? { firstSeq, lastSeq } : null,
  };
}

/** Seals on a timer; a round that fails is retried on the next tick. */
export function startStampSealing(db: Db, logger: Logger, intervalMs: number): Repeating {
  return startRepeating(() => sealStampRanges(db), {
    intervalMs,
    onError: (error) => logger.warn({ err: error }, 'sealing journal stamp ranges failed; retried on the next round'),
  });
}

/** journal_unsealed_seqs and journal_unsealed_age_seconds, read at each scrape (one index seek each). */
export function registerSealingGauge(registry: Registry, db: Db, logger: Logger): void {
  registerQueryGauge(registry, db, logger, {
    name: 'journal_unsealed_seqs',
    help: 'Seqs of the journal past its sealed stamp ranges, which time filters examine entry by entry; growing for minutes means a long-open transaction holds sealing up',
    sql: `SELECT (coalesce((SELECT max(seq) FROM journal_entries), 0) - sealed_through)::text AS value FROM journal_stamp_seal`,
  });
  registerQueryGauge(registry, db, logger, {
    name: 'journal_unsealed_age_seconds',
    help: 'How long ago the oldest entry past the sealed stamp ranges was stamped (0: none); two sealing rounds normally, minutes when a long-open transaction holds sealing up',
    sql: `SELECT coalesce(extract(epoch FROM clock_timestamp() - (SELECT created_at FROM journal_entries WHERE seq > s.sealed_through ORDER BY seq LIMIT 1)), 0)::text AS value
            FROM journal_stamp_seal s`,
  });
}
