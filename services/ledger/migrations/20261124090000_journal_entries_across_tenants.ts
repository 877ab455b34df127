import type { Knex } from 'knex';

/**
 * The platform operator's journal reads span tenants: pages in insertion order need `seq` on its
 * own (the tenant index leads with the tenant), and finding the entries of one business record
 * (a transfer, a deposit) needs its reference. Both are append-mostly btree inserts per entry.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE INDEX journal_entries_seq ON journal_entries (seq DESC);
    CREATE INDEX journal_entries_reference ON journal_entries (reference_id, reference_type);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS journal_entries_seq, journal_entries_reference');
}
