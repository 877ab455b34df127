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

/** Held by a ledger instance as long as it runs: a queued or running run whose owner's lock is free has lost its instance. */
const ownerLock = (owner: string): string => `ledger.reconciliation.full-runs:${owner}`;

export interface FullRunsOptions {
  db: Db;
  logger: Logger;
  batchSize: number;
  pace: BackgroundPace;
}

interface RunRow {
  id: string;
  owner: string | null;
  state: ReconciliationRunState;
  progress: unknown;
  result: unknown;
  record_digests: unknown;
  error: string | null;
}

/**
 * Background re-verifications of checks 1 and 2 from zero, one at a time per ledger instance
 * (each already takes its share of the database; two would only halve each other's pace), each
 * recorded in reconciliation_full_runs with its progress and result, and its owner: the instance
 * that queued it, which holds a session advisory lock named after itself from its first run on (one
 * pooled connection, however many runs it queues). Any instance asked for a run still queued or
 * running whose owner's lock is free records it failed: a run never waits on a dead instance.
 */
export class FullRuns {
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly owner = `ledger-${newId('reconciliationRun').slice(4)}`;
  private held: Promise<{ release(): Promise<void> }> | undefined;

  constructor(private readonly options: FullRunsOptions) {}

  /** This instance's lock, taken once: its name is this instance's own, so only a stale connection could hold it. */
  private holdOwnerLock(): Promise<{ release(): Promise<void> }> {
    this.held ??= holdSessionLock(this.options.db, ownerLock(this.owner)).then((held) => {
      if (!held) throw new Error(`the lock of ${this.owner} is taken`);
      return held;
    });
    this.held.catch(() => (this.held = undefined));
    return this.held;
  }

  async start(scope: TenantScope | null): Promise<LedgerFullRun> {
    const id = newId('reconciliationRun');
    await this.holdOwnerLock();
    await this.options.db('reconciliation_full_runs').insert({
      id,
      tenant_id: scope?.tenantId ?? null,
      environment: scope?.environment ?? null,
      state: 'queued',
      owner: this.owner,
    });
    this.queue = this.queue.then(() => this.run(id, scope));
    return { id, state: 'queued', progress: null, result: null, records: null, error: null };
  }

  async find(id: string): Promise<LedgerFullRun | null> {
    const row = (await this.row(id)) ?? null;
    if (row && (row.state === 'queued' || row.state === 'running') && (await this.failIfOrphaned(row))) return this.find(id);
    return row && this.asRun(row);
  }

  private row(id: string): Promise<RunRow | undefined> {
    return this.options
      .db('reconciliation_full_runs')
      .where({ id })
      .first('id', 'owner', 'state', 'progress', 'result', 'record_digests', 'error');
  }

  /** Records the run failed when its owner no longer holds its lock (a run with no owner predates owners); true when it did. */
  private async failIfOrphaned(row: RunRow): Promise<boolean> {
    if (row.owner === null || row.owner === this.owner) return false;
    const { db } = this.options;
    const probe = await holdSessionLock(db, ownerLock(row.owner));
    if (!probe) return false;
    try {
      const failed = await db('reconciliation_full_runs')
        .where({ id: row.id })
        .whereIn('state', ['queued', 'running'])
        .update({ state: 'failed', error: ORPHANED, finished_at: db.fn.now() });
      if (failed > 0)
        this.options.logger.warn({ runId: row.id, owner: row.owner }, 'ledger full reconciliation run lost its instance; recorded failed');
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
    await (await this.held?.catch(() => undefined))?.release();
  }
}
