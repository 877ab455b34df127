import type { Knex } from 'knex';
import { type Db, type Logger, microBatch, STATEMENT_BATCH_CONCURRENCY, withinMs } from '@wallet/kit';

export const AWAITING_LEDGER_TABLE = 'awaiting_ledger';

/**
 * Records whose request stopped waiting for the ledger's reply (answered 202 pending), from
 * when their command was sent. A row is written only at a deadline, never on the way of a
 * posting the ledger answers in time, and is deleted once a scrape sees its record finished:
 * the oldest record still waiting is found without an index on the records' own status, which
 * would make every finishing update of a record a non-HOT one.
 */
export async function createAwaitingLedgerTable(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${AWAITING_LEDGER_TABLE} (
      record_type  text NOT NULL,
      record_id    text NOT NULL,
      since        timestamptz NOT NULL,
      PRIMARY KEY (record_type, record_id)
    );
    CREATE INDEX IF NOT EXISTS awaiting_ledger_since ON ${AWAITING_LEDGER_TABLE} (record_type, since);
  `);
}

/** A kind of record that waits for the ledger: `recordType` is its metrics label. */
export interface AwaitedRecords {
  recordType: string;
  table: string;
  /** SQL on the record's row (alias `r`, found by its primary key `id`): true while the ledger has yet to answer it. */
  waiting: string;
}

/** The record a posting command is for, as `Postings.expect` takes it. */
export interface AwaitedRecord {
  type: string;
  id: string;
}

/** Rows looked at per statement; a scrape goes on while a whole batch was finished, up to ROUNDS_MAX. */
const BATCH = 500;
const ROUNDS_MAX = 20;
/** The 202 waits for its record's row this long at most: a database that stalls costs the gauge that record, not the answer its delay. */
const NOTE_TIMEOUT_MS = 1_000;

interface Waited {
  record: AwaitedRecord;
  waitedMs: number;
}

export class AwaitingLedger {
  private readonly kinds = new Map<string, AwaitedRecords>();
  /** The deadlines of one turn (a ledger outage brings many) are written by one statement. */
  private readonly write: (waited: Waited) => Promise<void>;

  constructor(private readonly options: { db: Db; logger: Logger }) {
    this.write = microBatch((batch: Waited[]) => this.writeNow(batch), { concurrency: STATEMENT_BATCH_CONCURRENCY });
  }

  add(records: AwaitedRecords): void {
    this.kinds.set(records.recordType, records);
  }

  has(recordType: string): boolean {
    return this.kinds.has(recordType);
  }

  get recordTypes(): string[] {
    return [...this.kinds.keys()];
  }

  /** Remembers a record whose request stopped waiting `waitedMs` after its command was sent. Never throws: a lost row costs the gauge that record only. */
  async note(record: AwaitedRecord, waitedMs: number): Promise<void> {
    try {
      await withinMs(this.write({ record, waitedMs }), NOTE_TIMEOUT_MS);
    } catch (error) {
      this.options.logger.warn({ err: error, record }, 'could not note a record still waiting for the ledger');
    }
  }

  private async writeNow(batch: Waited[]): Promise<void[]> {
    // One row per record: an upsert may not touch a row twice in one statement.
    const latest = new Map(batch.map((waited) => [`${waited.record.type}\u0000${waited.record.id}`, waited]));
    const rows = [...latest.values()];
    await this.options.db.raw(
      `INSERT INTO ${AWAITING_LEDGER_TABLE} (record_type, record_id, since)
       SELECT w.record_type, w.record_id, now() - make_interval(secs => w.waited_seconds)
       FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS float8[])) AS w(record_type, record_id, waited_seconds)
       ON CONFLICT (record_type, record_id) DO UPDATE SET since = EXCLUDED.since`,
      [
        rows.map((row) => row.record.type),
        rows.map((row) => row.record.id),
        rows.map((row) => row.waitedMs / 1000),
      ] as unknown as Knex.RawBinding[],
    );
    return batch.map(() => undefined);
  }

  /**
   * Seconds since the oldest record of the type that still waits was sent (0 when none), or
   * null when too many finished ones were ahead of it to look through in one scrape (the next
   * goes on from there). Finished ones are deleted on the way.
   */
  async oldestAgeSeconds(recordType: string): Promise<number | null> {
    const kind = this.kinds.get(recordType);
    if (!kind) throw new Error(`no awaited records of type ${recordType}`);
    for (let round = 0; round < ROUNDS_MAX; round += 1) {
      const result = await this.options.db.raw<{ rows: Array<{ age: number | null; looked: number }> }>(
        `WITH oldest AS (
           SELECT w.record_id, w.since, EXISTS (SELECT 1 FROM ${kind.table} r WHERE r.id = w.record_id AND (${kind.waiting})) AS waiting
           FROM ${AWAITING_LEDGER_TABLE} w WHERE w.record_type = ? ORDER BY w.since LIMIT ?
         ),
         finished AS (
           DELETE FROM ${AWAITING_LEDGER_TABLE} a USING oldest o
           -- Same since: a row noted again meanwhile (the record's next step) is a new wait.
           WHERE a.record_type = ? AND a.record_id = o.record_id AND a.since = o.since AND NOT o.waiting
           RETURNING 1
         )
         SELECT CAST(EXTRACT(EPOCH FROM now() - min(since) FILTER (WHERE waiting)) AS double precision) AS age,
                CAST(count(*) AS integer) AS looked, (SELECT count(*) FROM finished) AS removed
         FROM oldest`,
        [recordType, BATCH, recordType],
      );
      const row = result.rows[0];
      if (row?.age !== null && row?.age !== undefined) return Math.max(0, row.age);
      if ((row?.looked ?? 0) < BATCH) return 0;
    }
    return null;
  }
}
