import { newId, RECONCILIATION_CHECK_NAMES, type ReconciliationMismatchCounts, type ReconciliationResult } from '@wallet/contracts';
import type { Db, Logger, ServiceMetrics } from '@wallet/kit';
import { Counter, Gauge } from 'prom-client';
import { insertRun, latestRuns, roundRecorded, type StoredReconciliationRun } from './reconciliation-runs-store';

/** Every payments instance takes the same lock for a round: whoever holds it runs the round, the others skip it. */
const LOCK_KEY = 'payments.reconciliation_runs';
/** An error message is kept for the operator, not a whole stack or a page of HTML. */
const ERROR_MESSAGE_MAX = 2000;
/** One scrape reads the table once, however many of the gauges ask. */
const LATEST_CACHE_MS = 1000;

export interface ReconciliationScheduleOptions {
  db: Db;
  logger: Logger;
  /** Length of a round; 0 turns the schedule off (runs can still be read). */
  intervalMs: number;
  /** The all-tenant run. */
  run: () => Promise<ReconciliationResult>;
  metrics: ServiceMetrics;
  now?: () => Date;
}

/** The start of the round `at` falls in: rounds are aligned on the clock, so every instance agrees on them. */
export function roundOf(at: Date, intervalMs: number): Date {
  return new Date(Math.floor(at.getTime() / intervalMs) * intervalMs);
}

function mismatchCounts(result: ReconciliationResult): ReconciliationMismatchCounts {
  const counts: ReconciliationMismatchCounts = { balances: 0, entries_balance: 0, business_records: 0, bank_evidence: 0 };
  for (const name of RECONCILIATION_CHECK_NAMES) counts[name] = result.checks.find((check) => check.name === name)?.mismatches.length ?? 0;
  return counts;
}

/**
 * The all-tenant reconciliation on a schedule, each run recorded in reconciliation_runs. The
 * round is claimed with a transaction-scoped advisory try-lock held for the whole run, and
 * looked up under it: an instance that finds the lock taken, or the round already recorded,
 * skips it. The lock goes with the transaction, so a crashed instance never keeps it.
 */
export class ReconciliationSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  private readonly runsTotal: Counter<string>;
  private latest: { at: number; runs: ReturnType<typeof latestRuns> } | null = null;

  constructor(private readonly options: ReconciliationScheduleOptions) {
    const { metrics } = options;
    this.runsTotal = metrics.counter('reconciliation_runs_total', 'Scheduled reconciliation runs this instance recorded, by status', [
      'status',
    ]);
    // The gauges read the table: whichever instance ran the last round, every instance reports it.
    // A failed read leaves them as they were rather than failing the whole /metrics answer.
    const latest = () => this.latestRuns().catch(() => ({ last: undefined, lastCompleted: undefined }));
    new Gauge({
      name: 'reconciliation_mismatches',
      help: 'Mismatches per check in the last scheduled reconciliation run whose checks all ran; alert when above 0',
      labelNames: ['check'],
      registers: [metrics.registry],
      async collect() {
        const { lastCompleted } = await latest();
        if (!lastCompleted?.mismatchCounts) return;
        for (const name of RECONCILIATION_CHECK_NAMES) this.set({ check: name }, lastCompleted.mismatchCounts[name]);
      },
    });
    new Gauge({
      name: 'reconciliation_last_run_timestamp_seconds',
      help: 'When the last scheduled reconciliation run finished, whatever its status (0 before the first)',
      registers: [metrics.registry],
      async collect() {
        const { last } = await latest();
        if (last !== undefined) this.set(last ? last.finishedAt.getTime() / 1000 : 0);
      },
    });
    new Gauge({
      name: 'reconciliation_last_run_ok',
      help: 'Whether the last scheduled reconciliation run found nothing wrong: 1 ok, 0 mismatch, error or no run yet',
      registers: [metrics.registry],
      async collect() {
        const { last } = await latest();
        if (last !== undefined) this.set(last?.status === 'ok' ? 1 : 0);
      },
    });
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  private latestRuns(): ReturnType<typeof latestRuns> {
    const at = Date.now();
    if (!this.latest || at - this.latest.at > LATEST_CACHE_MS) {
      const runs = latestRuns(this.options.db);
      // A failed read is not kept: the next scrape asks again.
      runs.catch(() => {
        if (this.latest?.runs === runs) this.latest = null;
      });
      this.latest = { at, runs };
    }
    return this.latest.runs;
  }

  /** Runs and records the round starting at `roundAt`, or answers null when another run has it or had it. */
  async runRound(roundAt: Date): Promise<StoredReconciliationRun | null> {
    const recorded = await this.options.db.transaction(async (tx) => {
      // Per round: a run still going from an earlier round (or a test's) never makes this round skip.
      const lock = await tx.raw<{ rows: Array<{ locked: boolean }> }>(
        'SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS locked',
        [`${LOCK_KEY}:${roundAt.toISOString()}`],
      );
      if (lock.rows[0]?.locked !== true) return null;
      if (await roundRecorded(tx, roundAt)) return null;
      const startedAt = this.now();
      let run: Omit<StoredReconciliationRun, 'finishedAt' | 'id'>;
      try {
        const result = await this.options.run();
        run = { roundAt, startedAt, status: result.status, mismatchCounts: mismatchCounts(result), result, error: null };
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_MESSAGE_MAX) || 'reconciliation failed';
        run = { roundAt, startedAt, status: 'error', mismatchCounts: null, result: null, error: message };
      }
      const stored: StoredReconciliationRun = { id: newId('reconciliationRun'), finishedAt: this.now(), ...run };
      await insertRun(tx, stored);
      return stored;
    });
    if (recorded) {
      this.latest = null;
      this.runsTotal.inc({ status: recorded.status });
      const log = { runId: recorded.id, status: recorded.status, mismatches: recorded.mismatchCounts, error: recorded.error };
      if (recorded.status === 'ok') this.options.logger.info(log, 'reconciliation run recorded');
      else this.options.logger.warn(log, 'reconciliation run found a problem');
    }
    return recorded;
  }

  /** One run at the start of every round from the next one on; a start or restart mid-round does not add one. */
  start(): void {
    if (this.options.intervalMs <= 0) return;
    this.scheduleNext();
  }

  private scheduleNext(): void {
    const intervalMs = this.options.intervalMs;
    this.schedule(intervalMs - (this.now().getTime() % intervalMs));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runRound(roundOf(this.now(), this.options.intervalMs))
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error }, 'reconciliation round could not be run or recorded; the next round tries again'),
        )
        .finally(() => {
          this.running = null;
          this.scheduleNext();
        });
    }, delayMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.running) await this.running;
  }
}
