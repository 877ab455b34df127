import type { Db, SqlStatement } from '@wallet/kit';

/** The account's state after its last line stamped at or before the moment; null before its first line. */
export interface LineAt {
  journalEntryId: string;
  balanceAfter: string;
  /** The line's entry's seq: where a statement bounded by this moment ends. */
  entrySeq: string;
}

/**
 * Bisects the account's lines by entry_seq on journal_lines_account (account_num, entry_seq DESC,
 * line_no DESC): each step is one seek for the newest line at or below a seq and one primary-key
 * read of its entry's stamp, so about log2 of the account's span of seqs in steps (at most some
 * 40), however long its history, and no index beyond the journal's own. It is exact because
 * stamps never decrease down an account's lines (posting stamps a batch no earlier than the
 * accounts it locks).
 *
 * The search keeps lo, a seq whose newest line at or below is stamped at or before the moment
 * (or absent), and hi, the greatest seq the answer may still be at; a probe that lands on a
 * later-stamped line drops hi below that line at once. The newest and oldest lines are tried
 * first: "now" and "before it all" cost two seeks, and the search spans the account's own seqs.
 */
const BISECT_SQL = `
WITH RECURSIVE newest AS (
  -- The entry's stamp by a scalar look-up on its primary key, once the line is found: joined, the
  -- two seq orders invite a merge join that walks the entries back from the newest.
  SELECT l.entry_seq, (SELECT e.created_at FROM journal_entries e WHERE e.seq = l.entry_seq) <= ?::timestamptz AS at_or_before
    FROM journal_lines l
   WHERE l.account_num = (SELECT num FROM accounts WHERE id = ?)
   ORDER BY l.entry_seq DESC, l.line_no DESC
   LIMIT 1
), oldest AS (
  SELECT l.entry_seq, (SELECT e.created_at FROM journal_entries e WHERE e.seq = l.entry_seq) <= ?::timestamptz AS at_or_before
    FROM journal_lines l
   WHERE l.account_num = (SELECT num FROM accounts WHERE id = ?)
   ORDER BY l.entry_seq, l.line_no
   LIMIT 1
), bisect(lo, hi) AS (
  SELECT CASE WHEN n.at_or_before THEN n.entry_seq WHEN o.at_or_before THEN o.entry_seq ELSE o.entry_seq - 1 END,
         CASE WHEN n.at_or_before THEN n.entry_seq WHEN o.at_or_before THEN n.entry_seq - 1 ELSE o.entry_seq - 1 END
    FROM newest n CROSS JOIN oldest o
  UNION ALL
  SELECT CASE WHEN probe.at_or_before THEN probe.mid ELSE b.lo END,
         CASE WHEN probe.at_or_before THEN b.hi ELSE probe.entry_seq - 1 END
    FROM bisect b
    CROSS JOIN LATERAL (
      SELECT m.mid, l.entry_seq, COALESCE(e.created_at <= ?::timestamptz, true) AS at_or_before
        FROM (SELECT (b.lo + b.hi + 1) / 2 AS mid) m
        LEFT JOIN LATERAL (
          SELECT entry_seq FROM journal_lines
           WHERE account_num = (SELECT num FROM accounts WHERE id = ?) AND entry_seq <= m.mid
           ORDER BY entry_seq DESC, line_no DESC
           LIMIT 1
        ) l ON true
        LEFT JOIN journal_entries e ON e.seq = l.entry_seq
    ) probe
   WHERE b.lo < b.hi
)
SELECT e.id AS entry_id, l.balance_after, l.entry_seq
  FROM bisect b
  JOIN LATERAL (
    SELECT entry_seq, balance_after FROM journal_lines
     WHERE account_num = (SELECT num FROM accounts WHERE id = ?) AND entry_seq <= b.lo
     ORDER BY entry_seq DESC, line_no DESC
     LIMIT 1
  ) l ON true
  JOIN journal_entries e ON e.seq = l.entry_seq
 WHERE b.lo = b.hi`;

/** The lookup as one statement (tests explain it); `at` is an ISO 8601 instant as balanceMomentSchema leaves it. */
export function lineAtStatement(accountId: string, at: string): SqlStatement {
  return { sql: BISECT_SQL, bindings: [at, accountId, at, accountId, at, accountId, accountId] };
}

export async function lineAt(db: Db, accountId: string, at: string): Promise<LineAt | null> {
  const { sql, bindings } = lineAtStatement(accountId, at);
  const result: { rows: Array<{ entry_id: string; balance_after: string; entry_seq: string }> } = await db.raw(sql, bindings);
  const row = result.rows[0];
  return row ? { journalEntryId: row.entry_id, balanceAfter: row.balance_after, entrySeq: row.entry_seq } : null;
}
