import type { LedgerFullRun, LedgerFullRunProgress } from '@wallet/contracts';
import type { TenantScope } from '../journal/journal-scope';
import type { LedgerShards } from '../partitions/ledger-shards';
import type { FullRuns } from './full-runs';
import { mergeLedgerResults } from './ledger-checks';

/** Joins the runs of every shard in the id of a run across every tenant. */
const RUN_ID_SEPARATOR = '.';
const PHASES: Array<LedgerFullRunProgress['phase']> = ['entries', 'accounts', 'done'];

/** The state of runs that go on side by side: failed if one failed, done when all are, running while one is. */
function mergedState(runs: readonly LedgerFullRun[]): LedgerFullRun['state'] {
  if (runs.some((run) => run.state === 'failed')) return 'failed';
  if (runs.every((run) => run.state === 'succeeded')) return 'succeeded';
  if (runs.every((run) => run.state === 'queued')) return 'queued';
  return 'running';
}

function mergedProgress(runs: readonly LedgerFullRun[]): LedgerFullRunProgress | null {
  const progresses = runs.flatMap((run) => (run.progress ? [run.progress] : []));
  if (progresses.length === 0) return null;
  const sum = (field: 'accounts' | 'entries' | 'lines'): number => progresses.reduce((total, each) => total + each[field], 0);
  const estimates = progresses.map((each) => each.linesEstimate);
  return {
    // The least advanced shard's phase; a shard not started yet is still at its first.
    phase:
      progresses.length < runs.length
        ? 'entries'
        : (PHASES[Math.min(...progresses.map((each) => PHASES.indexOf(each.phase)))] ?? 'entries'),
    accounts: sum('accounts'),
    entries: sum('entries'),
    lines: sum('lines'),
    linesEstimate: estimates.every((each) => each !== null) ? estimates.reduce<number>((total, each) => total + (each ?? 0), 0) : null,
  };
}

/**
 * Full runs on a sharded ledger. A tenant's run is its shard's. A run across every tenant is one
 * run per shard, side by side, answered as one. Its record digests are left out: each shard's
 * are through its own seq, which no single seq of the answer can say, so check 3 compares each
 * scope's records with their entries one by one (docs/scaling.md).
 */
export class ShardedFullRuns {
  constructor(
    private readonly shards: LedgerShards,
    /** One per shard, in shard order. */
    private readonly runs: readonly FullRuns[],
  ) {}

  async start(scope: TenantScope | null): Promise<LedgerFullRun> {
    if (this.runs.length === 1 || scope) return this.runsOf(scope ? await this.shards.shardOfTenant(scope.tenantId) : 0).start(scope);
    const started = await Promise.all(this.runs.map((runs) => runs.start(null)));
    return this.merged(started);
  }

  async find(id: string): Promise<LedgerFullRun | null> {
    const ids = id.split(RUN_ID_SEPARATOR);
    if (ids.length === 1) {
      const found = await Promise.all(this.runs.map((runs) => runs.find(id)));
      return found.find((run) => run !== null) ?? null;
    }
    if (ids.length !== this.runs.length) return null;
    const found = await Promise.all(ids.map((each, shard) => this.runsOf(shard).find(each)));
    return found.every((run) => run !== null) ? this.merged(found) : null;
  }

  async stop(): Promise<void> {
    for (const runs of this.runs) await runs.stop();
  }

  private merged(runs: LedgerFullRun[]): LedgerFullRun {
    const state = mergedState(runs);
    const results = runs.flatMap((run) => (run.result ? [run.result] : []));
    return {
      id: runs.map((run) => run.id).join(RUN_ID_SEPARATOR),
      state,
      progress: mergedProgress(runs),
      result: state === 'succeeded' ? mergeLedgerResults(results) : null,
      records: null,
      error: runs.find((run) => run.error !== null)?.error ?? null,
    };
  }

  private runsOf(shard: number): FullRuns {
    const runs = this.runs[shard];
    if (!runs) throw new Error(`no full runs for ledger shard ${shard}`);
    return runs;
  }
}
