import type { Knex } from 'knex';

/**
 * The journal is kept for ever, so its bytes per entry are what a year of traffic costs. This
 * narrows it without losing anything it answers:
 *
 * - A line names its entry by the entry's seq (8 bytes, already on every line) instead of
 *   repeating the entry's 30-character id, and its account by the account's number (8 bytes)
 *   instead of the account's 30-character id; the line's currency is its account's. The
 *   primary key becomes (entry_seq, line_no), appended in order.
 * - Entries are keyed by seq (the old seq-only index becomes the primary key; the id stays
 *   UNIQUE for look-ups and for reversals' foreign key).
 * - The correlation id was written and never read: a request is traced through its business
 *   record and the request log, not the journal.
 * - An entry keeps the command that posted it as the 16-byte MD5 of its id (command_key, UNIQUE)
 *   instead of the id's 35 characters: the key still refuses a second entry for one command
 *   for ever, whatever its record; the id itself stays in processed_commands for its window.
 *   (Command ids are made by the services from their records' random ids, so no one can choose
 *   two that collide.) A record's entries are found by equality on reference_id alone, which
 *   a hash index serves at two thirds of a btree's size.
 * - The tenant index is keyed by a 4-byte hash of tenant and environment instead of their 35
 *   bytes of text (the rows' own columns are rechecked, so a collision costs a few rows read):
 *   with tenants interleaved its pages split half full, so width is most of its size.
 * - Check 3 reads each scope's new entries through that index (they are few, all after the
 *   scope's mark), so (reference_type, tenant, environment, seq) has no reader left.
 *
 * Measured with \`BENCH_STORAGE=1 npm run bench\` (docs/benchmarks.md, Storage): the journal went from 1,254
 * to the figure recorded there per two-line transfer.
 *
 * On an existing database the lines are copied once into the new shape (time and space
 * proportional to the journal; the ledger migrates before it consumes, so nothing posts
 * meanwhile).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    ALTER TABLE accounts ADD COLUMN num bigint GENERATED ALWAYS AS IDENTITY;
    ALTER TABLE accounts ADD CONSTRAINT accounts_num_key UNIQUE (num);

    CREATE TABLE journal_lines_compact (
      entry_seq      bigint NOT NULL,
      account_num    bigint NOT NULL,
      line_no        smallint NOT NULL,
      direction      char(2) NOT NULL CHECK (direction IN ('DR', 'CR')),
      amount         numeric NOT NULL CHECK (amount > 0),
      balance_after  numeric NOT NULL
    );
    INSERT INTO journal_lines_compact (entry_seq, account_num, line_no, direction, amount, balance_after)
      SELECT l.entry_seq, a.num, l.line_no, l.direction, l.amount, l.balance_after
        FROM journal_lines l JOIN accounts a ON a.id = l.account_id
       ORDER BY l.entry_seq, l.line_no;
    DROP TABLE journal_lines;
    ALTER TABLE journal_lines_compact RENAME TO journal_lines;
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_pkey PRIMARY KEY (entry_seq, line_no);
    CREATE INDEX journal_lines_account ON journal_lines (account_num, entry_seq DESC, line_no DESC);

    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_reverses_entry_id_fkey;
    ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_pkey;
    DROP INDEX journal_entries_seq;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_pkey PRIMARY KEY (seq);
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_id_key UNIQUE (id);
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_reverses_entry_id_fkey FOREIGN KEY (reverses_entry_id) REFERENCES journal_entries (id);
    ALTER TABLE journal_entries DROP COLUMN correlation_id;
    DROP INDEX journal_entries_reference_type_seq;
    DROP INDEX journal_entries_reference;
    CREATE INDEX journal_entries_reference ON journal_entries USING hash (reference_id);
    DROP INDEX journal_entries_tenant_seq;
    CREATE INDEX journal_entries_scope_seq ON journal_entries ((hashtext(tenant_id || '/' || environment)), seq);

    ALTER TABLE journal_entries ADD COLUMN command_key uuid;
    UPDATE journal_entries SET command_key = md5(command_id)::uuid;
    ALTER TABLE journal_entries ALTER COLUMN command_key SET NOT NULL;
    ALTER TABLE journal_entries DROP COLUMN command_id;
    ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_command_key UNIQUE (command_key);
  `);
}

export async function down(): Promise<void> {
  throw new Error('the compact journal is not converted back: restore from a backup taken before the migration');
}
