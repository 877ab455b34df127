import type { Knex } from 'knex';

/**
 * A time window used to find its span by reading every stamp range: one row per 4,096 entries,
 * about five million after a year at 700 entries a second. Two columns that only grow along the
 * seqs make each end of the span one index probe:
 *
 * - `max_created_at_through`: the latest stamp of this range and every earlier one. The first
 *   range whose own latest stamp reaches a window's start is the first whose value here does.
 * - `min_created_at_from`: the earliest stamp of this range and every later one. The last range
 *   whose own earliest stamp is at or before a window's end is the last whose value here is.
 *
 * The span between them holds every range that meets the window (and, stamps following seqs only
 * roughly, maybe a few that do not; the list tests each entry's stamp). Sealing a round lowers
 * `min_created_at_from` of the earlier ranges an earlier stamp reaches back to: the last few.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    ALTER TABLE journal_stamp_ranges ADD COLUMN max_created_at_through timestamptz, ADD COLUMN min_created_at_from timestamptz;
    UPDATE journal_stamp_ranges r SET max_created_at_through = w.through, min_created_at_from = w.after
      FROM (SELECT last_seq,
                   max(max_created_at) OVER (ORDER BY last_seq) AS through,
                   min(min_created_at) OVER (ORDER BY last_seq DESC) AS after
              FROM journal_stamp_ranges) w
     WHERE w.last_seq = r.last_seq;
    ALTER TABLE journal_stamp_ranges ALTER COLUMN max_created_at_through SET NOT NULL, ALTER COLUMN min_created_at_from SET NOT NULL;
    CREATE INDEX journal_stamp_ranges_through ON journal_stamp_ranges (max_created_at_through, last_seq);
    CREATE INDEX journal_stamp_ranges_from ON journal_stamp_ranges (min_created_at_from, last_seq);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE journal_stamp_ranges DROP COLUMN max_created_at_through, DROP COLUMN min_created_at_from');
}
