import type { Knex } from 'knex';
import { Counter, Gauge, type Registry } from 'prom-client';
import { z } from 'zod';
import { type BackgroundPace, UNPACED } from './background-pace';
import type { Db } from './db';
import type { Logger } from './logger';

const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_RETENTION_BATCH_SIZE = 1_000;
/** Bounds one pass of a rule; a bigger backlog is worked off over the next passes. */
export const DEFAULT_RETENTION_MAX_BATCHES = 100;
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;
export const DEFAULT_RETENTION_FIRST_PASS_DELAY_MS = 5 * 60_000;

/** Read by every service with retention rules, the gateway too (part of the common settings). */
export const retentionStartConfigShape = {
  /**
   * A rule's first pass comes between half and all of this after the start (at random, so that
   * instances started together do not purge together), or after its interval if that is sooner:
   * not a whole interval later, or a service restarted more often than its interval (the
   * gateway's request logs: an hour) would never purge.
   */
  RETENTION_FIRST_PASS_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(DEFAULT_RETENTION_FIRST_PASS_DELAY_MS),
};

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
  /** With `windowMs` 0: how long a row lives from its insert to the expiry it is given (reported, not enforced). */
  lifetimeMs?: number;
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
  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(24)
    .max(24 * 365)
    .default(24),
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
  await db.raw(`SELECT brin_desummarize_range(CAST(? AS regclass), block) FROM unnest(CAST(? AS bigint[])) AS block`, [
    indexName,
    ranges,
  ] as unknown as Knex.RawBinding[]);
}

/** Ranges summarized by one statement: 16 MB of table at most, so a pass paces itself between them. */
const SUMMARIZE_RANGES_PER_STATEMENT = 16;

/**
 * A range no summary covers is scanned by every pass, and only vacuum summarizes the ranges
 * written since it last ran (with autovacuum's insert threshold, up to a fifth of the table): a
 * pass would read everything inserted since. So a pass first summarizes the complete ranges written
 * since the last one, from the end back to the first range already summarized (older ones a pass
 * desummarized are left to vacuum). The last, partial range stays unsummarized: summarized, it
 * would have to be widened by every insert. The summary's lock is not one a writer takes.
 */
async function summarizeWrittenRanges(db: Db, table: string, indexName: string, pace: BackgroundPace): Promise<void> {
  const sized = await db.raw<{ rows: Array<{ blocks: string }> }>(
    `SELECT pg_relation_size(CAST(? AS regclass)) / current_setting('block_size')::bigint AS blocks`,
    [table],
  );
  const lastComplete = (Math.floor(Number(sized.rows[0]?.blocks ?? 0) / BRIN_PAGES_PER_RANGE) - 1) * BRIN_PAGES_PER_RANGE;
  for (let high = lastComplete; high >= 0; high -= SUMMARIZE_RANGES_PER_STATEMENT * BRIN_PAGES_PER_RANGE) {
    const started = performance.now();
    const low = Math.max(0, high - (SUMMARIZE_RANGES_PER_STATEMENT - 1) * BRIN_PAGES_PER_RANGE);
    const result = await db.raw<{ rows: Array<{ summarized: number }> }>(
      `SELECT brin_summarize_range(CAST(? AS regclass), block)::int AS summarized FROM generate_series(CAST(? AS bigint), CAST(? AS bigint), CAST(? AS bigint)) AS block`,
      [indexName, high, low, -BRIN_PAGES_PER_RANGE],
    );
    if (result.rows.some((row) => row.summarized === 0)) return;
    await pace.rest(performance.now() - started);
  }
}

export interface PurgeOptions {
  /** The clock the window is measured on (ms since the epoch). */
  nowMs?: number;
  maxBatches?: number;
  /** Rests after each full batch while the service is busy; none when unset. */
  pace?: BackgroundPace;
  /** Called after each batch with how many it deleted (tests watch the batches go by). */
  onBatch?: (deleted: number) => void | Promise<void>;
}

export interface PurgePass {
  purged: number;
  /** The last batch came back short: nothing past the window was left (but rows a writer held). */
  caughtUp: boolean;
}

/**
 * One pass of a rule: batches of `batchSize`, each its own statement and transaction, until a
 * batch finds fewer rows or `maxBatches` ran.
 */
export async function purgePass(db: Db, rule: RetentionRule, options: PurgeOptions = {}): Promise<PurgePass> {
  const batchSize = rule.batchSize ?? DEFAULT_RETENTION_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  const cutoff = new Date((options.nowMs ?? Date.now()) - rule.windowMs);
  const sql = batchSql(rule);
  const pace = options.pace ?? UNPACED;
  const blocks = new Set<number>();
  let purged = 0;
  if (rule.index.kind === 'brin') await summarizeWrittenRanges(db, rule.table, rule.index.name, pace);
  try {
    for (let batch = 0; batch < (options.maxBatches ?? DEFAULT_RETENTION_MAX_BATCHES); batch += 1) {
      const started = performance.now();
      const result = await db.raw<{ rows: Array<{ block: string }> }>(sql, [cutoff.toISOString(), batchSize]);
      for (const row of result.rows) blocks.add(Number(row.block));
      purged += result.rows.length;
      await options.onBatch?.(result.rows.length);
      if (result.rows.length < batchSize) return { purged, caughtUp: true };
      await pace.rest(performance.now() - started);
    }
  } finally {
    if (rule.index.kind === 'brin') await desummarize(db, rule.index.name, blocks);
  }
  return { purged, caughtUp: false };
}

/** One pass of a rule; how many rows it deleted. */
export async function purgeRule(db: Db, rule: RetentionRule, options: PurgeOptions = {}): Promise<number> {
  return (await purgePass(db, rule, options)).purged;
}

/**
 * What a service's purges report on /metrics, one set per registry (the gateway starts two
 * retentions): each table's window, rows deleted, and for how long a table has held rows past its
 * window that the passes did not clear, which grows when purging fails or cannot keep up with the
 * inserts.
 */
export class RetentionMetrics {
  private readonly purged: Counter<'table'>;
  private readonly window: Gauge<'table'>;
  /** Per table: when a pass last left nothing past the window, and whether the last pass did. */
  private readonly tables = new Map<string, { caughtUpAtMs: number; caughtUp: boolean }>();

  constructor(registry: Registry) {
    this.purged = new Counter({
      name: 'retention_rows_purged_total',
      help: 'Rows deleted by the retention purges',
      labelNames: ['table'],
      registers: [registry],
    });
    this.window = new Gauge({
      name: 'retention_window_seconds',
      help: 'How long the table keeps a row: its retention window, or from insert to the expiry a row is given',
      labelNames: ['table'],
      registers: [registry],
    });
    const tables = this.tables;
    new Gauge({
      name: 'retention_behind_seconds',
      help: 'How long the table has held rows past its retention window that the purge passes did not clear (0 after a pass that cleared them)',
      labelNames: ['table'],
      registers: [registry],
      collect() {
        const now = Date.now();
        for (const [table, state] of tables) this.set({ table }, state.caughtUp ? 0 : (now - state.caughtUpAtMs) / 1000);
      },
    });
  }

  watch(rule: RetentionRule): void {
    if (!this.tables.has(rule.table)) this.tables.set(rule.table, { caughtUpAtMs: Date.now(), caughtUp: true });
    const keptMs = rule.windowMs > 0 ? rule.windowMs : rule.lifetimeMs;
    if (keptMs !== undefined) this.window.set({ table: rule.table }, keptMs / 1000);
  }

  /** A pass ended: `caughtUp` false when it left rows past the window or failed. */
  passed(table: string, purged: number, caughtUp: boolean): void {
    if (purged > 0) this.purged.inc({ table }, purged);
    const state = this.tables.get(table);
    if (!state) return;
    state.caughtUp = caughtUp;
    if (caughtUp) state.caughtUpAtMs = Date.now();
  }
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
  /** Rests between batches while the service is busy (the service's background pace); none when unset. */
  pace?: BackgroundPace;
  metrics?: RetentionMetrics;
  /** Each rule's first pass: between half and all of this after the start, or after its interval if sooner. */
  firstPassDelayMs?: number;
}

/**
 * Runs each rule every `intervalMs` (its own, or the default) until stopped, the first time soon
 * after the start (`firstPassDelayMs`). A pass that ends on
 * a full batch left rows past the window (inserts outran one pass an interval: at 700 rows a
 * second, ten minutes bring 420,000), so the next starts at once, after the pace's rest, until a
 * pass clears them. Purges are background work: a failed pass is logged and tried again on the
 * next tick.
 */
export function startRetention(options: RetentionOptions): Retention {
  const nowMs = options.nowMs ?? Date.now;
  const running = new Map<RetentionRule, Promise<PurgePass>>();
  const timers = new Map<RetentionRule, NodeJS.Timeout>();
  let stopped = false;

  function runRule(rule: RetentionRule): Promise<PurgePass> {
    const current = running.get(rule);
    if (current) return current;
    const pass = purgePass(
      options.db,
      { ...rule, batchSize: rule.batchSize ?? options.batchSize },
      { nowMs: nowMs(), maxBatches: options.maxBatches, pace: options.pace },
    )
      .then((result) => {
        if (result.purged > 0)
          options.logger.info({ table: rule.table, purged: result.purged, caughtUp: result.caughtUp }, 'rows past retention purged');
        options.metrics?.passed(rule.table, result.purged, result.caughtUp);
        return result;
      })
      .catch((error: unknown) => {
        options.metrics?.passed(rule.table, 0, false);
        throw error;
      })
      .finally(() => running.delete(rule));
    running.set(rule, pass);
    return pass;
  }

  const intervalOf = (rule: RetentionRule) => rule.intervalMs ?? options.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS;
  const firstPassDelayMs = options.firstPassDelayMs ?? DEFAULT_RETENTION_FIRST_PASS_DELAY_MS;
  const firstPassOf = (rule: RetentionRule) => Math.min(intervalOf(rule), Math.round(firstPassDelayMs * (1 - Math.random() / 2)));

  function schedule(rule: RetentionRule, delayMs: number): void {
    if (stopped) return;
    const timer = setTimeout(() => {
      runRule(rule)
        .then((result) => schedule(rule, result.caughtUp ? intervalOf(rule) : 0))
        .catch((error: unknown) => {
          options.logger.warn({ err: error, table: rule.table }, 'retention purge failed; tried again on the next round');
          schedule(rule, intervalOf(rule));
        });
    }, delayMs);
    timer.unref();
    timers.set(rule, timer);
  }

  for (const rule of options.rules) {
    options.metrics?.watch(rule);
    schedule(rule, firstPassOf(rule));
  }

  return {
    async runOnce() {
      const purged: Record<string, number> = {};
      for (const rule of options.rules) purged[rule.table] = (purged[rule.table] ?? 0) + (await runRule(rule)).purged;
      return purged;
    },
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      await Promise.all([...running.values()].map((pass) => pass.catch(() => undefined)));
    },
  };
}

/** The inbox's ids of consumed messages, kept `retentionDays` after they were processed. */
export function inboxRetentionRule(retentionDays: number): RetentionRule {
  return {
    table: 'inbox',
    column: 'processed_at',
    windowMs: daysMs(retentionDays),
    index: { kind: 'brin', name: INBOX_PROCESSED_AT_INDEX },
  };
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
