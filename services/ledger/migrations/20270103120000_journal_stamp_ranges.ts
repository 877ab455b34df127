import type { Knex } from 'knex';

/**
 * What the journal's time filters seek by (features/journal/journal-stamps.ts): per run of seqs
 * whose entries are all committed, the earliest and latest stamp among them. Stamps follow seqs
 * only roughly (a batch is stamped before it is written, batches overlap), so a window is mapped to
 * the runs whose stamps meet it, never to a seq guessed from a time. About one row per 4,096
 * entries; kept with the journal. `journal_stamp_seal` is the one row saying how far the runs go,
 * and which seqs the next round may add once every transaction older than `candidate_at` is over.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE journal_stamp_ranges (
      last_seq        bigint PRIMARY KEY,
      first_seq       bigint NOT NULL,
      min_created_at  timestamptz NOT NULL,
      max_created_at  timestamptz NOT NULL
    );
    CREATE TABLE journal_stamp_seal (
      one               boolean PRIMARY KEY DEFAULT true CHECK (one),
      sealed_through    bigint NOT NULL DEFAULT 0,
      candidate_through bigint,
      candidate_at      timestamptz
    );
    INSERT INTO journal_stamp_seal DEFAULT VALUES;
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS journal_stamp_ranges, journal_stamp_seal');
}
