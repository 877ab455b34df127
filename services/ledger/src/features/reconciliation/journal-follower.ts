import type { Counter } from 'prom-client';
import { type Db, type Logger, type Repeating, type ServiceMetrics, startRepeating, withSessionLock } from '@wallet/kit';
import { scopeKeySql, scopeSeqRangeSql, type TenantScope } from '../journal/journal-scope';
import { incrementalLedgerChecks } from './incremental-check';

/** One follower at a time on a ledger database, whichever instance: keyed by name, as the project's other advisory locks. */
export const FOLLOWER_LOCK = 'ledger.reconciliation.follower';

/** A round: skipped (another instance follows the journal now), or the scopes it checked and the mismatches it found. */
export type FollowRound = { skipped: true } | { skipped: false; scopes: number; mismatches: number };

/**
 * Scopes whose journal goes past their checkpoint: one probe of journal_entries_scope_seq per scope with a checkpoint, plus
 * those never checked: the scopes of the entries written since the last round (`afterSeq`) or, on a first round, of the
 * accounts with no checkpoint (accounts are few next to lines: one pass over them is no history read).
 */
async function scopesBehind(db: Db, afterSeq: string | null): Promise<{ scopes: TenantScope[]; topSeq: string }> {
  const unchecked =
    afterSeq === null
      ? `SELECT DISTINCT a.tenant_id, a.environment, top.seq FROM accounts a, top
          WHERE NOT EXISTS (SELECT 1 FROM reconciliation_scope_checkpoints c WHERE c.tenant_id = a.tenant_id AND c.environment = a.environment)`
      : 'SELECT j.tenant_id, j.environment, top.seq FROM journal_entries j, top WHERE j.seq > ?::bigint';
  const result = await db.raw<{ rows: Array<{ tenant_id: string | null; environment: TenantScope['environment']; top_seq: string }> }>(
    `WITH top AS (SELECT COALESCE(max(seq), 0) AS seq FROM journal_entries)
     SELECT tenant_id, environment, seq::text AS top_seq FROM (
       SELECT c.tenant_id, c.environment, top.seq FROM reconciliation_scope_checkpoints c, top
        WHERE EXISTS (SELECT 1 FROM journal_entries j WHERE ${scopeSeqRangeSql('j', scopeKeySql('c'), 'c.verified_seq')})
       UNION ${unchecked}
       UNION SELECT NULL, NULL, top.seq FROM top
     ) behind`,
    afterSeq === null ? [] : [afterSeq],
  );
  const topSeq = result.rows[0]?.top_seq ?? afterSeq ?? '0';
  const scopes = result.rows.flatMap((row) => (row.tenant_id === null ? [] : [{ tenantId: row.tenant_id, environment: row.environment }]));
  return { scopes, topSeq };
}

/**
 * Checks 1 and 2 of every scope, a few seconds behind its journal (docs/reconciliation.md): each round runs the incremental
 * check (the on-demand check's own code) on every scope with entries past its checkpoint, so the checkpoints follow the
 * journal and a reconciliation asked for reads only what came since the last round. A mismatch keeps its scope's checkpoint
 * where it is, so the answer asked for next still reports it. Instances run rounds one at a time, under a session advisory
 * lock on a pooled connection (no transaction stays open through a round); a crashed instance's lock goes with its connection.
 */
export class JournalFollower {
  private readonly mismatchesFound: Counter<string>;
  private readonly scopesChecked: Counter<string>;
  /** Per shard, the journal's top seq at the last round; null before the first. */
  private readonly afterSeqs: Array<string | null>;
  private repeating: Repeating | null = null;

  constructor(private readonly options: { dbs: readonly Db[]; logger: Logger; metrics: ServiceMetrics; entriesMax: number }) {
    this.afterSeqs = options.dbs.map(() => null);
    this.scopesChecked = options.metrics.counter('ledger_follower_scopes_checked_total', 'Scopes the journal follower checked');
    this.mismatchesFound = options.metrics.counter(
      'ledger_follower_mismatches_total',
      'Mismatches the journal follower found (a scope with one is found again each round until put right)',
    );
  }

  start(intervalMs: number): void {
    this.repeating = startRepeating(() => this.round(), {
      intervalMs,
      onError: (error) => this.options.logger.warn({ err: error }, 'following the journal failed; retried on the next round'),
    });
  }

  async stop(): Promise<void> {
    await this.repeating?.stop();
  }

  /** A round on every shard, each under that shard's lock: skipped when another instance follows them all now. */
  async round(): Promise<FollowRound> {
    const rounds = [];
    for (const [shard, db] of this.options.dbs.entries()) {
      const checked = await withSessionLock(db, FOLLOWER_LOCK, () => this.checkScopesBehind(db, shard));
      if (checked) rounds.push(checked);
    }
    if (rounds.length === 0) return { skipped: true };
    return {
      skipped: false,
      scopes: rounds.reduce((sum, each) => sum + each.scopes, 0),
      mismatches: rounds.reduce((sum, each) => sum + each.mismatches, 0),
    };
  }

  private async checkScopesBehind(db: Db, shard: number): Promise<{ scopes: number; mismatches: number }> {
    const { scopes, topSeq } = await scopesBehind(db, this.afterSeqs[shard] ?? null);
    let mismatches = 0;
    for (const scope of scopes) {
      const found = await incrementalLedgerChecks(db, scope, { entriesMax: this.options.entriesMax });
      const count = found.balances.length + found.entries.length;
      if (count > 0)
        this.options.logger.warn({ ...scope, balances: found.balances.length, entries: found.entries.length }, 'ledger mismatch');
      mismatches += count;
    }
    this.scopesChecked.inc(scopes.length);
    this.mismatchesFound.inc(mismatches);
    // An entry committed later under a lower seq is met through its scope's checkpoint, once that scope has one.
    this.afterSeqs[shard] = topSeq;
    return { scopes: scopes.length, mismatches };
  }
}
