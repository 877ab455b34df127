import type { Environment, MatchRule } from '@wallet/contracts';
import type { Db, SeqPageFilter, Tx } from '@wallet/kit';

export interface MatchScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredMatch {
  seq: string;
  id: string;
  depositId: string;
  lineId: string;
  reason: string;
  proposedBy: string;
  status: 'pending' | 'approved' | 'rejected';
  decidedBy: string | null;
  decidedAt: Date | null;
  rejectionReason: string | null;
  createdAt: Date;
}

interface MatchRow {
  seq: string;
  id: string;
  deposit_id: string;
  line_id: string;
  reason: string;
  proposed_by: string;
  status: StoredMatch['status'];
  decided_by: string | null;
  decided_at: Date | null;
  rejection_reason: string | null;
  created_at: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'deposit_id',
  'line_id',
  'reason',
  'proposed_by',
  'status',
  'decided_by',
  'decided_at',
  'rejection_reason',
  'created_at',
];

function toMatch(row: MatchRow): StoredMatch {
  return {
    seq: String(row.seq),
    id: row.id,
    depositId: row.deposit_id,
    lineId: String(row.line_id),
    reason: row.reason,
    proposedBy: row.proposed_by,
    status: row.status,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    rejectionReason: row.rejection_reason,
    createdAt: row.created_at,
  };
}

const scoped = (scope: MatchScope) => ({ tenant_id: scope.tenantId, environment: scope.environment });

/** A new pending match; null when the slip or the line is in another pending match already. */
export async function insertMatch(
  tx: Tx,
  scope: MatchScope,
  match: { id: string; depositId: string; lineId: string; reason: string; proposedBy: string },
): Promise<StoredMatch | null> {
  const rows: MatchRow[] = await tx('statement_matches')
    .insert({
      ...scoped(scope),
      id: match.id,
      deposit_id: match.depositId,
      line_id: match.lineId,
      reason: match.reason,
      proposed_by: match.proposedBy,
    })
    .onConflict()
    .ignore()
    .returning(COLUMNS);
  return rows[0] ? toMatch(rows[0]) : null;
}

export async function findMatch(db: Db | Tx, scope: MatchScope, id: string): Promise<StoredMatch | null> {
  const row: MatchRow | undefined = await db('statement_matches')
    .where({ ...scoped(scope), id })
    .first(COLUMNS);
  return row ? toMatch(row) : null;
}

/** Decides a pending match; null when it is no longer pending (decided meanwhile). */
export async function decideMatch(
  tx: Tx,
  scope: MatchScope,
  id: string,
  decision: { status: 'approved' | 'rejected'; decidedBy: string; rejectionReason: string | null },
): Promise<StoredMatch | null> {
  const rows: MatchRow[] = await tx('statement_matches')
    .where({ ...scoped(scope), id, status: 'pending' })
    .update({
      status: decision.status,
      decided_by: decision.decidedBy,
      decided_at: tx.fn.now(),
      rejection_reason: decision.rejectionReason,
    })
    .returning(COLUMNS);
  return rows[0] ? toMatch(rows[0]) : null;
}

/** Newest first; status=pending through its own index. */
export async function listMatches(
  db: Db,
  scope: MatchScope,
  filter: SeqPageFilter & { status?: StoredMatch['status'] | undefined },
): Promise<StoredMatch[]> {
  const query = db('statement_matches')
    .where(scoped(scope))
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1)
    .select(COLUMNS);
  if (filter.status) query.where({ status: filter.status });
  if (filter.beforeSeq) query.where('seq', '<', filter.beforeSeq);
  const rows: MatchRow[] = await query;
  return rows.map(toMatch);
}

/** The tenant's rule: the same reference, within 3 days, until one is set. */
export const DEFAULT_MATCH_RULE: MatchRule = { reference: 'exact', dateWindowDays: 3 };

export async function findMatchRule(db: Db | Tx, scope: MatchScope): Promise<MatchRule> {
  const row: { reference: MatchRule['reference']; date_window_days: number } | undefined = await db('reconciliation_match_rules')
    .where(scoped(scope))
    .first(['reference', 'date_window_days']);
  return row ? { reference: row.reference, dateWindowDays: row.date_window_days } : DEFAULT_MATCH_RULE;
}

export async function saveMatchRule(tx: Tx, scope: MatchScope, rule: MatchRule, updatedBy: string): Promise<void> {
  await tx('reconciliation_match_rules')
    .insert({ ...scoped(scope), reference: rule.reference, date_window_days: rule.dateWindowDays, updated_by: updatedBy })
    .onConflict(['tenant_id', 'environment'])
    .merge(['reference', 'date_window_days', 'updated_by', 'updated_at']);
}
