import { type ReconciliationMismatchCounts, type ReconciliationResult, type ReconciliationRunStatus } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';

export interface StoredReconciliationRun {
  id: string;
  roundAt: Date;
  startedAt: Date;
  finishedAt: Date;
  status: ReconciliationRunStatus;
  mismatchCounts: ReconciliationMismatchCounts | null;
  /** Null for an `error` run, and in a listing (which leaves the full result out). */
  result: ReconciliationResult | null;
  error: string | null;
}

interface RunRow {
  id: string;
  round_at: Date;
  started_at: Date;
  finished_at: Date;
  status: ReconciliationRunStatus;
  mismatch_counts: ReconciliationMismatchCounts | null;
  result?: ReconciliationResult | null;
  error: string | null;
}

const SUMMARY_COLUMNS = ['id', 'round_at', 'started_at', 'finished_at', 'status', 'mismatch_counts', 'error'];

function fromRow(row: RunRow): StoredReconciliationRun {
  return {
    id: row.id,
    roundAt: row.round_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    status: row.status,
    mismatchCounts: row.mismatch_counts,
    result: row.result ?? null,
    error: row.error,
  };
}

export async function roundRecorded(tx: Tx, roundAt: Date): Promise<boolean> {
  return (await tx('reconciliation_runs').where({ round_at: roundAt }).first('id')) !== undefined;
}

export async function insertRun(tx: Tx, run: StoredReconciliationRun): Promise<void> {
  await tx('reconciliation_runs').insert({
    id: run.id,
    round_at: run.roundAt,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    status: run.status,
    // jsonb through knex: a JSON text, as pg would otherwise send an object as a string of its own making.
    mismatch_counts: run.mismatchCounts === null ? null : JSON.stringify(run.mismatchCounts),
    result: run.result === null ? null : JSON.stringify(run.result),
    error: run.error,
  });
}

/** Newest first (ids sort by the time they were made), one more than asked so the caller knows if a page follows. */
export async function listRuns(db: Db, options: { limit: number; beforeId?: string | undefined }): Promise<StoredReconciliationRun[]> {
  const query = db('reconciliation_runs')
    .select(SUMMARY_COLUMNS)
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  if (options.beforeId !== undefined) query.where('id', '<', options.beforeId);
  const rows: RunRow[] = await query;
  return rows.map(fromRow);
}

export async function findRun(db: Db, id: string): Promise<StoredReconciliationRun | null> {
  const row: RunRow | undefined = await db('reconciliation_runs')
    .where({ id })
    .first([...SUMMARY_COLUMNS, 'result']);
  return row ? fromRow(row) : null;
}

/** The newest run whatever its status, and the newest one whose checks all ran (not `error`). */
export async function latestRuns(db: Db): Promise<{ last: StoredReconciliationRun | null; lastCompleted: StoredReconciliationRun | null }> {
  const last: RunRow | undefined = await db('reconciliation_runs').orderBy('id', 'desc').first(SUMMARY_COLUMNS);
  const lastCompleted: RunRow | undefined =
    last && last.status !== 'error'
      ? last
      : await db('reconciliation_runs').whereNot({ status: 'error' }).orderBy('id', 'desc').first(SUMMARY_COLUMNS);
  return { last: last ? fromRow(last) : null, lastCompleted: lastCompleted ? fromRow(lastCompleted) : null };
}
