import type { Knex } from 'knex';
import { z } from 'zod';
import { createIndexConcurrently, type Db } from './db';
import type { Logger } from './logger';

const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_RETENTION_BATCH_SIZE = 1_000;
/** Bounds one pass of a rule; a bigger backlog is worked off over the next passes. */
export const DEFAULT_RETENTION_MAX_BATCHES = 100;
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;

/**
 * How a rule's time column is indexed, which decides how old rows are found:
 * - `btree`: oldest first, along the index (ORDER BY column LIMIT n);
 * - `brin`: any old rows, in physical order, without a sort (a BRIN index only says which block
 *   ranges may hold them). BRIN fits a column set to now() on insert: the rows arrive in time
 *   order, so each range's summary is narrow, and the index costs the insert next to nothing.
 */
export type RetentionIndex = { kind: 'btree' } | { kind: 'brin'; name: string };

export interface RetentionRule {
  table: string;
  /** The time column the window is measured on (timestamptz). */
  column: string;
  /** A row goes once `column` is older than now minus this; 0 for a column that holds the row's own expiry. */
  windowMs: number;
  index: RetentionIndex;
  /** A further condition a row must meet to go (plain SQL on the table's columns, no bindings). */
  andWhere?: string;
  batchSize?: number;
  /** How often the rule runs; the service's default when unset. */
  intervalMs?: number;
}

export function daysMs(count: number): number {
  return count * DAY_MS;
}

/** Settings every service started by startService reads for its retention. */
export const retentionConfigShape = {
  /** How often each retention rule runs, and how many rows one of its statements deletes at most. */
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(DEFAULT_RETENTION_INTERVAL_MS),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_RETENTION_BATCH_SIZE),
  /**
   * How long a consumed message's id stays in the inbox (its duplicate memory). A redelivery
   * within this is recognised; the broker redelivers at once, so only a dead-lettered message
   * moved back by hand can come later, and must be moved back within this window.
   */
  INBOX_RETENTION_DAYS: z.coerce.number().int().min(7).max(3650).default(30),
  /** How long an Idempotency-Key is remembered: at least the 24 hours the API promises. */
  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce.number().int().min(24).max(24 * 365).default(24),
};

function quoted(identifier: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(identifier)) throw new Error(`not a plain SQL identifier: ${identifier}`);
  return `"${identifier}"`;
}

/**
 * One batch: the rows are picked and locked by a subquery that skips rows a writer holds, and
 * deleted by their ctid (a TID scan) in the same statement, so it holds its few locks only for
 * the statement and never waits on a live transaction.
 */
function batchSql(rule: RetentionRule): string {
  const table = quoted(rule.table);
  const column = quoted(rule.column);
  const extra = rule.andWhere === undefined ? '' : ` AND (${rule.andWhere})`;
  const order = rule.index.kind === 'btree' ? ` ORDER BY ${column}` : '';
  return `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM ${table} WHERE ${column} < CAST(? AS timestamptz)${extra}${order}
    LIMIT CAST(? AS integer) FOR UPDATE SKIP LOCKED))
    RETURNING (ctid::text::point)[0]::bigint AS block`;
}

// BRIN's default; the kit creates its BRIN indexes with it.
const BRIN_PAGES_PER_RANGE = 128;

/**
 * A BRIN summary only ever widens: once vacuum hands the emptied blocks to new rows, their range
 * would still claim the old minimum and every later pass would scan it. So the ranges a pass
 * deleted from are desummarized (an unsummarized range is always scanned, so nothing is missed),
 * and the next vacuum summarizes them again from the rows still there. It takes no lock that
 * inserts wait for.
 */
async function desummarize(db: Db, indexName: string, blocks: ReadonlySet<number>): Promise<void> {
  const ranges = [...new Set([...blocks].map((block) => Math.floor(block / BRIN_PAGES_PER_RANGE) * BRIN_PAGES_PER_RANGE))];
  if (ranges.length === 0) return;
  await db.raw(`SELECT brin_desummarize_range(CAST(? AS regclass), block) FROM unnest(CAST(? AS bigint[])) AS block`, [indexName, ranges] as unknown as Knex.RawBinding[]);
}

export interface PurgeOptions {
  /** The clock the window is measured on (ms since the epoch). */
  nowMs?: number;
  maxBatches?: number;
  /** Called after each batch with how many it deleted (tests watch the batches go by). */
  onBatch?: (deleted: number) => void | Promise<void>;
}

/**
 * One pass of a rule: batches of `batchSize`, each its own statement and transaction, until a
 * batch finds fewer rows or `maxBatches` ran. Returns how many rows it deleted.
 */
export async function purgeRule(db: Db, rule: RetentionRule, options: PurgeOptions = {}): Promise<number> {
  const batchSize = rule.batchSize ?? DEFAULT_RETENTION_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  const cutoff = new Date((options.nowMs ?? Date.now()) - rule.windowMs);
  const sql = batchSql(rule);
  const blocks = new Set<number>();
  let purged = 0;
  try {
    for (let batch = 0; batch < (options.maxBatches ?? DEFAULT_RETENTION_MAX_BATCHES); batch += 1) {
      const result = await db.raw<{ rows: Array<{ block: string }> }>(sql, [cutoff.toISOString(), batchSize]);
      for (const row of result.rows) blocks.add(Number(row.block));
      purged += result.rows.length;
      await options.onBatch?.(result.rows.length);
      if (result.rows.length < batchSize) break;
    }
  } finally {
    if (rule.index.kind === 'brin') await desummarize(db, rule.index.name, blocks);
  }
  return purged;
}

export interface Retention {
  /** One pass of every rule now (a pass of a rule already under way is joined); rows deleted per table. */
  runOnce(): Promise<Record<string, number>>;
  /** Stops the timers and waits for the passes in progress. */
  stop(): Promise<void>;
}

export interface RetentionOptions {
  db: Db;
  logger: Logger;
  rules: readonly RetentionRule[];
  /** For rules that set none. */
  intervalMs?: number;
  /** For rules that set none. */
  batchSize?: number;
  maxBatches?: number;
  nowMs?: () => number;
}

/**
 * Runs each rule every `intervalMs` (its own, or the default) until stopped. Purges are
 * background work: a failed pass is logged and tried again on the next tick.
 */
export function startRetention(options: RetentionOptions): Retention {
  const nowMs = options.nowMs ?? Date.now;
  const running = new Map<RetentionRule, Promise<number>>();

  function runRule(rule: RetentionRule): Promise<number> {
    const current = running.get(rule);
    if (current) return current;
    const pass = purgeRule(options.db, { ...rule, batchSize: rule.batchSize ?? options.batchSize }, { nowMs: nowMs(), maxBatches: options.maxBatches })
      .then((purged) => {
        if (purged > 0) options.logger.info({ table: rule.table, purged }, 'rows past retention purged');
        return purged;
      })
      .finally(() => running.delete(rule));
    running.set(rule, pass);
    return pass;
  }

  const timers = options.rules.map((rule) => {
    const timer = setInterval(() => {
      runRule(rule).catch((error: unknown) => options.logger.warn({ err: error, table: rule.table }, 'retention purge failed; tried again on the next round'));
    }, rule.intervalMs ?? options.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
    timer.unref();
    return timer;
  });

  return {
    async runOnce() {
      const purged: Record<string, number> = {};
      for (const rule of options.rules) purged[rule.table] = (purged[rule.table] ?? 0) + (await runRule(rule));
      return purged;
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([...running.values()].map((pass) => pass.catch(() => undefined)));
    },
  };
}

/** The inbox's ids of consumed messages, kept `retentionDays` after they were processed. */
export function inboxRetentionRule(retentionDays: number): RetentionRule {
  return { table: 'inbox', column: 'processed_at', windowMs: daysMs(retentionDays), index: { kind: 'brin', name: INBOX_PROCESSED_AT_INDEX } };
}

export const INBOX_PROCESSED_AT_INDEX = 'inbox_processed_at_brin';

/** How long a finished background reconciliation run (ledger's and payments' `reconciliation_full_runs`) is kept. */
export const fullRunsRetentionConfigShape = {
  RECONCILIATION_FULL_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
};

/**
 * Finished full runs older than the window; queued and running ones have no finished_at and
 * stay. A run is asked for now and then, by hand: the table stays small, so no index.
 */
export function fullRunsRetentionRule(retentionDays: number): RetentionRule {
  return { table: 'reconciliation_full_runs', column: 'finished_at', windowMs: daysMs(retentionDays), index: { kind: 'btree' } };
}

/**
 * Step of a migration with `transaction: false`: the index the inbox's retention finds old rows
 * by (rows arrive in processed_at order), built without holding back the consumers' inserts.
 */
export async function createInboxRetentionIndex(db: Knex): Promise<void> {
  await createIndexConcurrently(db, INBOX_PROCESSED_AT_INDEX, 'inbox USING brin (processed_at)');
}
