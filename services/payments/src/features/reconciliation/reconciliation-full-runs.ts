import {
  type LedgerFullRun,
  newId,
  type RecordDigests,
  type ReconciliationFullRun,
  reconciliationResultSchema,
  type ReconciliationRunState,
} from '@wallet/contracts';
import { type Db, enqueueOutbox, type Logger, newPlatformEventMessage } from '@wallet/kit';
import type { LedgerReads } from '@wallet/money-commands';
import type { ReconciliationScope, ReconciliationService } from './reconciliation-service';

const ERROR_MESSAGE_MAX = 2000;
/** How often the ledger's run is asked how far it is, and progress written. */
const POLL_MS = 500;

interface FullRunRow {
  id: string;
  tenant_id: string | null;
  environment: ReconciliationScope['environment'] | null;
  state: ReconciliationRunState;
  progress: { ledger?: LedgerFullRun['progress']; records?: number };
  result: unknown;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

function fromRow(row: FullRunRow): ReconciliationFullRun {
  const result = row.result === null ? null : reconciliationResultSchema.parse(row.result);
  return {
    id: row.id,
    kind: 'full',
    tenantId: row.tenant_id,
    environment: row.environment,
    state: row.state,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    progress: { ledger: row.progress.ledger ?? null, records: row.progress.records ?? 0 },
    status: result?.status ?? null,
    result,
    error: row.error,
  };
}

export interface FullRunsOptions {
  db: Db;
  logger: Logger;
  ledger: LedgerReads;
  reconciliation: ReconciliationService;
  /** Deadline of treasury's check of all its records, and of the ledger's part of the run. */
  treasuryTimeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Full re-verifications from zero, in the background, recorded in reconciliation_full_runs: the
 * ledger re-verifies checks 1 and 2 (paced by its traffic: BACKGROUND_BUSY_SHARE) while this
 * instance checks every business record (its own, and treasury's by treasury) and the bank
 * evidence; then the four results make one, in the shape of a check asked now.
 */
export class ReconciliationFullRuns {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: FullRunsOptions) {}

  /** Starts a run, or answers the one already queued or running for the same scope: two would only halve each other's pace. */
  async start(scope: ReconciliationScope | null): Promise<ReconciliationFullRun> {
    // One older than a full run's deadline was left behind by an instance that stopped.
    const going = this.options
      .db('reconciliation_full_runs')
      .whereIn('state', ['queued', 'running'])
      .where('created_at', '>', new Date(Date.now() - this.options.treasuryTimeoutMs))
      .orderBy('id', 'desc');
    if (scope) going.where({ tenant_id: scope.tenantId, environment: scope.environment });
    else going.whereNull('tenant_id');
    const existing: FullRunRow | undefined = await going.first();
    if (existing) return fromRow(existing);
    const id = newId('reconciliationRun');
    const [row] = await this.options
      .db('reconciliation_full_runs')
      .insert({ id, tenant_id: scope?.tenantId ?? null, environment: scope?.environment ?? null, state: 'queued' })
      .returning('*');
    const run = this.run(id, scope).finally(() => this.running.delete(run));
    this.running.add(run);
    return fromRow(row as FullRunRow);
  }

  /** A run by id; within the scope when one is given (a tenant sees only its own). */
  async find(id: string, scope: ReconciliationScope | null): Promise<ReconciliationFullRun | null> {
    const query = this.options.db('reconciliation_full_runs').where({ id });
    if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
    const row: FullRunRow | undefined = await query.first();
    return row ? fromRow(row) : null;
  }

  private async update(id: string, fields: Record<string, unknown>): Promise<void> {
    await this.options.db('reconciliation_full_runs').where({ id }).update(fields);
  }

  /** Records a run's end; a tenant's run that found a mismatch announces it in the same transaction (docs/events.md). */
  private async finish(id: string, scope: ReconciliationScope | null, fields: Record<string, unknown>): Promise<void> {
    await this.options.db.transaction(async (tx) => {
      const [row] = await tx<FullRunRow>('reconciliation_full_runs').where({ id }).update(fields).returning('*');
      const run = row && fromRow(row);
      if (scope && run?.status === 'mismatch') await enqueueOutbox(tx, [newPlatformEventMessage(scope, 'reconciliation.mismatch', run)]);
    });
  }

  private async run(id: string, scope: ReconciliationScope | null): Promise<void> {
    const { reconciliation, logger } = this.options;
    const progress: { ledger: LedgerFullRun['progress']; records: number } = { ledger: null, records: 0 };
    let lastWrite = 0;
    const writeProgress = async (force: boolean): Promise<void> => {
      if (!force && Date.now() - lastWrite < POLL_MS) return;
      lastWrite = Date.now();
      await this.update(id, { progress: JSON.stringify(progress) });
    };
    try {
      await this.update(id, { state: 'running', started_at: this.options.db.fn.now() });
      const ledgerRun = this.followLedgerRun(scope, progress, writeProgress);
      // Check 3 waits for it at its end; a failure is reported from here.
      ledgerRun.catch(() => undefined);
      // None from a run across the ledger's shards: each scope's records are then compared one by one.
      const passDigests = async (): Promise<RecordDigests | null> => (await ledgerRun).records;
      const onProgress = async (count: number): Promise<void> => {
        progress.records = count;
        await writeProgress(false);
      };
      const records = await reconciliation.allBusinessRecords(scope, passDigests, {
        onProgress,
        treasuryTimeoutMs: this.options.treasuryTimeoutMs,
      });
      const checkedAt = new Date();
      const bankEvidence = await reconciliation.bankEvidence(scope, checkedAt);
      const ledgerState = await ledgerRun;
      if (!ledgerState.result) throw new Error(`the ledger's full run ${ledgerState.id} gave no result`);
      const result = reconciliation.assemble(ledgerState.result, records, bankEvidence, checkedAt, 'full');
      await this.finish(id, scope, {
        state: 'succeeded',
        progress: JSON.stringify(progress),
        result: JSON.stringify(result),
        finished_at: this.options.db.fn.now(),
      });
      logger.info({ runId: id, status: result.status, coverage: result.coverage }, 'full reconciliation finished');
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_MESSAGE_MAX) || 'full reconciliation failed';
      logger.warn({ runId: id, err: error }, 'full reconciliation failed');
      await this.update(id, { state: 'failed', error: message, finished_at: this.options.db.fn.now() }).catch(() => undefined);
    }
  }

  /** Starts the ledger's run (checks 1 and 2, and the record digests) and follows it to its end, writing its progress. */
  private async followLedgerRun(
    scope: ReconciliationScope | null,
    progress: { ledger: LedgerFullRun['progress'] },
    writeProgress: (force: boolean) => Promise<void>,
  ): Promise<LedgerFullRun> {
    const { ledger } = this.options;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const started = await ledger.startFullRun(scope);
    const deadline = Date.now() + this.options.treasuryTimeoutMs;
    let state = started;
    while (state.state === 'queued' || state.state === 'running') {
      if (this.stopped) throw new Error('payments is stopping');
      if (Date.now() > deadline)
        throw new Error(`the ledger's full run ${started.id} did not finish within PAYMENTS_RECONCILIATION_FULL_TIMEOUT_MS`);
      await sleep(POLL_MS);
      state = await ledger.fullRun(started.id);
      progress.ledger = state.progress;
      await writeProgress(true);
    }
    if (state.state === 'failed') throw new Error(`the ledger's full run ${started.id} failed: ${state.error ?? 'no result'}`);
    return state;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running]);
  }
}
