import { type Db, type Logger, registerQueryGauge, type Repeating, startRepeating } from '@wallet/kit';
import type { Registry } from 'prom-client';

/** Seqs per row of journal_stamp_ranges: a window is found to within this many entries at each end. */
const STAMP_RANGE_SEQS = 4096;
/** Seqs one round summarizes at most, so a round after a long pause (or a migrated journal) stays short. */
const SEAL_STEP_MAX = 1_000_000;

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
    const seal: SealRow | undefined = await tx('journal_stamp_seal').forUpdate().skipLocked().first(tx.raw('sealed_through::text'), tx.raw('candidate_through::text'), 'candidate_at');
    if (!seal) return null;
    let sealed = BigInt(seal.sealed_through);
    let candidate = seal.candidate_through === null ? null : BigInt(seal.candidate_through);
    if (candidate !== null && (await settledSince(tx, seal.candidate_at as Date))) {
      const through = candidate < sealed + BigInt(SEAL_STEP_MAX) ? candidate : sealed + BigInt(SEAL_STEP_MAX);
      await tx.raw(
        `INSERT INTO journal_stamp_ranges (first_seq, last_seq, min_created_at, max_created_at)
         SELECT min(seq), max(seq), min(created_at), max(created_at) FROM journal_entries
          WHERE seq > ? AND seq <= ? GROUP BY seq / ${STAMP_RANGE_SEQS}`,
        [sealed.toString(), through.toString()],
      );
      sealed = through;
      if (through === candidate) candidate = null;
    }
    let candidateAt = seal.candidate_at;
    if (candidate === null) {
      const newest: { seq: string | null; at: Date } = (await tx.raw(`SELECT (SELECT max(seq) FROM journal_entries)::text AS seq, clock_timestamp() AS at`)).rows[0];
      candidate = newest.seq !== null && BigInt(newest.seq) > sealed ? BigInt(newest.seq) : null;
      candidateAt = candidate === null ? null : newest.at;
    }
    await tx('journal_stamp_seal').update({ sealed_through: sealed.toString(), candidate_through: candidate?.toString() ?? null, candidate_at: candidateAt });
    return sealed.toString();
  });
}

/** Whether every transaction of this database that began before `at` has ended (this one aside). */
async function settledSince(db: Db, at: Date): Promise<boolean> {
  const row: { settled: boolean } = (
    await db.raw(`SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start < ?) AS settled`, [at])
  ).rows[0];
  return row.settled;
}

/**
 * The seqs a time window can have entries at: every seq after the sealed ones (their stamps are
 * not summarized yet), and among the sealed ones the span of the runs whose stamps meet the window
 * (null when none does).
 */
export interface WindowSeqs {
  sealedThrough: string;
  span: { firstSeq: string; lastSeq: string } | null;
}

export async function windowSeqs(db: Db, window: { from?: string | undefined; to?: string | undefined }): Promise<WindowSeqs> {
  const row: { sealed_through: string; first_seq: string | null; last_seq: string | null } = (
    await db.raw(
      `SELECT s.sealed_through::text, r.first_seq::text, r.last_seq::text
         FROM journal_stamp_seal s,
              LATERAL (SELECT min(first_seq) AS first_seq, max(last_seq) AS last_seq FROM journal_stamp_ranges
                        WHERE max_created_at >= coalesce(?::timestamptz, '-infinity') AND min_created_at <= coalesce(?::timestamptz, 'infinity')) r`,
      [window.from ?? null, window.to ?? null],
    )
  ).rows[0];
  return { sealedThrough: row.sealed_through, span: row.first_seq !== null && row.last_seq !== null ? { firstSeq: row.first_seq, lastSeq: row.last_seq } : null };
}

/** Seals on a timer; a round that fails is retried on the next tick. */
export function startStampSealing(db: Db, logger: Logger, intervalMs: number): Repeating {
  return startRepeating(() => sealStampRanges(db), { intervalMs, onError: (error) => logger.warn({ err: error }, 'sealing journal stamp ranges failed; retried on the next round') });
}

/** journal_unsealed_seqs, read at each scrape. */
export function registerSealingGauge(registry: Registry, db: Db, logger: Logger): void {
  registerQueryGauge(registry, db, logger, {
    name: 'journal_unsealed_seqs',
    help: 'Seqs of the journal past its sealed stamp ranges, which time filters examine entry by entry; growing for minutes means a long-open transaction holds sealing up',
    sql: `SELECT (coalesce((SELECT max(seq) FROM journal_entries), 0) - sealed_through)::text AS value FROM journal_stamp_seal`,
  });
}
