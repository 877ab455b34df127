import {
  type LedgerFullRun,
  type LedgerFullRunProgress,
  newId,
  ledgerFullRunProgressSchema,
  recordDigestsSchema,
  reconciliationResultSchema,
  type ReconciliationRunState,
} from '@wallet/contracts';
import { type BackgroundPace, type Db, holdSessionLock, type Logger } from '@wallet/kit';
import type { TenantScope } from '../journal/journal-scope';
import { fullLedgerChecks } from './full-check';
import { ledgerResult } from './ledger-checks';

/** Progress is written at most this often: a run is watched, not logged line by line. */
const PROGRESS_EVERY_MS = 1000;
const ERROR_MESSAGE_MAX = 2000;
const ORPHANED = 'the ledger instance that held the run stopped before finishing it; ask for another run';

/** Held by the instance that queued the run until it ends: a run whose lock is free has lost its instance. */
const runLock = (id: string): string => `ledger.reconciliation.full-run:${id}`;

export interface FullRunsOptions {
  db: Db;
  logger: Logger;
  batchSize: number;
  pace: BackgroundPace;
}

interface RunRow {
  id: string;
  state: ReconciliationRunState;
  progress: unknown;
  result: unknown;
  record_digests: unknown;
  error: string | null;
}

/**
 * Background re-verifications of checks 1 and 2 from zero, one at a time per ledger instance
 * (each already takes its share of the database; two would only halve each other's pace), each
 * recorded in reconciliation_full_runs with its progress and result. The instance that queued a
 * run holds a session advisory lock on it until the run ends; any instance asked for a run still
 * queued or running whose lock is free records it failed, so a run never waits on a dead instance.
 */
export class FullRuns {
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: FullRunsOptions) {}

  async start(scope: TenantScope | null): Promise<LedgerFullRun> {
    const id = newId('reconciliationRun');
    const held = await holdSessionLock(this.options.db, runLock(id));
    if (!held) throw new Error(`the lock of a new run ${id} is taken`);
    try {
      await this.options
        .db('reconciliation_full_runs')
        .insert({ id, tenant_id: scope?.tenantId ?? null, environment: scope?.environment ?? null, state: 'queued' });
    } catch (error) {
      await held.release();
      throw error;
    }
    this.queue = this.queue.then(() => this.run(id, scope).finally(() => held.release().catch(() => undefined)));
    return { id, state: 'queued', progress: null, result: null, records: null, error: null };
  }

  async find(id: string): Promise<LedgerFullRun | null> {
    const row = (await this.row(id)) ?? null;
    if (row && (row.state === 'queued' || row.state === 'running') && (await this.failIfOrphaned(id))) return this.find(id);
    return row && this.asRun(row);
  }

  private row(id: string): Promise<RunRow | undefined> {
    return this.options.db('reconciliation_full_runs').where({ id }).first('id', 'state', 'progress', 'result', 'record_digests', 'error');
  }

  /** Records the run failed when no instance holds it any more; true when it did. */
  private async failIfOrphaned(id: string): Promise<boolean> {
    const { db } = this.options;
    const probe = await holdSessionLock(db, runLock(id));
    if (!probe) return false;
    try {
      const failed = await db('reconciliation_full_runs')
        .where({ id })
        .whereIn('state', ['queued', 'running'])
        .update({ state: 'failed', error: ORPHANED, finished_at: db.fn.now() });
      if (failed > 0) this.options.logger.warn({ runId: id }, 'ledger full reconciliation run lost its instance; recorded failed');
      return failed > 0;
    } finally {
      await probe.release();
    }
  }

  private asRun(row: RunRow): LedgerFullRun {
    const progress = ledgerFullRunProgressSchema.safeParse(row.progress);
    return {
      id: row.id,
      state: row.state,
      progress: progress.success ? progress.data : null,
      result: row.result === null ? null : reconciliationResultSchema.parse(row.result),
      records: row.record_digests === null ? null : recordDigestsSchema.parse(row.record_digests),
      error: row.error,
    };
  }

  private async run(id: string, scope: TenantScope | null): Promise<void> {
    const { db, logger } = this.options;
    if (this.stopped) {
      await db('reconciliation_full_runs')
        .where({ id })
        .update({ state: 'failed', error: 'the ledger stopped before the run began', finished_at: db.fn.now() })
        .catch(() => undefined);
      return;
    }
    let lastWrite = 0;
    const onProgress = async (progress: LedgerFullRunProgress): Promise<void> => {
      if (this.stopped) throw new Error('the ledger is stopping');
      if (Date.now() - lastWrite < PROGRESS_EVERY_MS && progress.phase !== 'done') return;
      lastWrite = Date.now();
      await db('reconciliation_full_runs')
        .where({ id })
        .update({ progress: JSON.stringify(progress) });
    };
    try {
      await db('reconciliation_full_runs').where({ id }).update({ state: 'running', started_at: db.fn.now() });
      const found = await fullLedgerChecks(db, scope, { batchSize: this.options.batchSize, pace: this.options.pace, onProgress });
      const result = ledgerResult(found, found.coverage, new Date());
      await db('reconciliation_full_runs')
        .where({ id })
        .update({
          state: 'succeeded',
          result: JSON.stringify(result),
          record_digests: JSON.stringify(found.records),
          finished_at: db.fn.now(),
        });
      logger.info({ runId: id, status: result.status, coverage: found.coverage }, 'ledger full reconciliation finished');
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_MESSAGE_MAX) || 'full reconciliation failed';
      logger.warn({ runId: id, err: error }, 'ledger full reconciliation failed');
      await db('reconciliation_full_runs')
        .where({ id })
        .update({ state: 'failed', error: message, finished_at: db.fn.now() })
        .catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
  }
}
