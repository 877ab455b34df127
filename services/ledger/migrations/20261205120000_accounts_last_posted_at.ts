import type { Knex } from 'knex';

/**
 * A balance as of a moment is found by bisecting an account's lines on journal_lines_account,
 * which needs the stamps of an account's entries never to go back down its lines. One ledger
 * instance stamps batches in the order they lock, but two instances' clocks (or one clock
 * stepped back) need not agree, so each account remembers the stamp of the last batch that
 * moved it and a batch never stamps earlier than any account it locked. The column lives on
 * accounts, not on the journal: the journal grows by nothing (no new index, no new column), and
 * the column is unindexed, so the balance update stays heap-only (HOT).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE accounts ADD COLUMN last_posted_at timestamptz');
  // An existing database: each account's newest line, found by one seek on journal_lines_account.
  await db.raw(`
    UPDATE accounts a SET last_posted_at = newest.created_at
      FROM accounts s
      CROSS JOIN LATERAL (
        SELECT e.created_at FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
         WHERE l.account_id = s.id ORDER BY l.entry_seq DESC, l.line_no DESC LIMIT 1
      ) newest
     WHERE a.id = s.id`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE accounts DROP COLUMN IF EXISTS last_posted_at');
}
