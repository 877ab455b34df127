import type { Db, Tx } from '@wallet/kit';
import type { TenantScope } from '../journal/journal-scope';

/** Debit and credit totals of one currency, decimal strings. */
export interface CurrencyTotals {
  debits: string;
  credits: string;
}

/** What checks 1 and 2 verified in one tenant's environment (see the migration creating the tables). */
export interface ScopeCheckpoint extends TenantScope {
  verifiedSeq: string;
  totals: Record<string, CurrencyTotals>;
  seenSeq: string;
  seenXmax: string;
}

interface ScopeRow {
  tenant_id: string;
  environment: TenantScope['environment'];
  verified_seq: string;
  totals: Record<string, CurrencyTotals>;
  seen_seq: string;
  seen_xmax: string;
}

function fromRow(row: ScopeRow): ScopeCheckpoint {
  return {
    tenantId: row.tenant_id,
    environment: row.environment,
    verifiedSeq: row.verified_seq,
    totals: row.totals,
    seenSeq: row.seen_seq,
    seenXmax: row.seen_xmax,
  };
}

const SCOPE_COLUMNS = `s.tenant_id, s.environment, COALESCE(c.verified_seq, 0)::text AS verified_seq, COALESCE(c.totals, '{}') AS totals,
  COALESCE(c.seen_seq, 0)::text AS seen_seq, COALESCE(c.seen_xmax, 0)::text AS seen_xmax`;

/**
 * The checkpoints of one scope, or of every scope that has accounts (scope null); a scope never
 * verified starts at seq 0. Accounts are few next to lines: one pass over them is no history read.
 */
export async function scopeCheckpoints(db: Db | Tx, scope: TenantScope | null): Promise<ScopeCheckpoint[]> {
  const result = scope
    ? await db.raw(
        `SELECT ${SCOPE_COLUMNS} FROM (SELECT ?::text AS tenant_id, ?::text AS environment) s
           LEFT JOIN reconciliation_scope_checkpoints c USING (tenant_id, environment)`,
        [scope.tenantId, scope.environment],
      )
    : await db.raw(
        `SELECT ${SCOPE_COLUMNS}
           FROM (SELECT DISTINCT tenant_id, environment FROM accounts UNION SELECT tenant_id, environment FROM reconciliation_scope_checkpoints) s
           LEFT JOIN reconciliation_scope_checkpoints c USING (tenant_id, environment)
          ORDER BY s.tenant_id, s.environment`,
      );
  return (result.rows as ScopeRow[]).map(fromRow);
}

export interface AccountCheckpoint {
  accountId: string;
  verifiedSeq: string;
  verifiedSum: string;
}

/**
 * Moves account checkpoints forward, never back: two runs racing both wrote true sums (each
 * account's lines come in seq order, under its row lock), so the later seq wins. `reset` (a full
 * run) also replaces a checkpoint at the same seq, whose sum it recomputed from zero.
 */
export async function advanceAccountCheckpoints(
  tx: Tx,
  checkpoints: readonly AccountCheckpoint[],
  options: { reset?: boolean } = {},
): Promise<void> {
  if (checkpoints.length === 0) return;
  // One order for every run, so two runs never wait on each other in a cycle.
  const sorted = [...checkpoints].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
  await tx.raw(
    `INSERT INTO reconciliation_account_checkpoints AS c (account_id, verified_seq, verified_sum)
     SELECT * FROM unnest(?::text[], ?::bigint[], ?::numeric[])
     ON CONFLICT (account_id) DO UPDATE SET verified_seq = EXCLUDED.verified_seq, verified_sum = EXCLUDED.verified_sum
      WHERE c.verified_seq ${options.reset ? '<=' : '<'} EXCLUDED.verified_seq`,
    [sorted.map((each) => each.accountId), sorted.map((each) => each.verifiedSeq), sorted.map((each) => each.verifiedSum)],
  );
}

export interface ScopeAdvance {
  next: ScopeCheckpoint;
  /** The row as the run read it: a run that lost a race to another leaves that one's row as it is. */
  previous: { verifiedSeq: string; seenSeq: string } | null;
}

export async function advanceScopeCheckpoints(tx: Tx, advances: readonly ScopeAdvance[]): Promise<void> {
  if (advances.length === 0) return;
  const rows = [...advances]
    .sort((a, b) => `${a.next.tenantId}|${a.next.environment}`.localeCompare(`${b.next.tenantId}|${b.next.environment}`))
    .map(({ next, previous }) => ({
      tenant_id: next.tenantId,
      environment: next.environment,
      verified_seq: next.verifiedSeq,
      totals: next.totals,
      seen_seq: next.seenSeq,
      seen_xmax: next.seenXmax,
      prev_verified: previous?.verifiedSeq ?? '0',
      prev_seen: previous?.seenSeq ?? '0',
    }));
  const json = JSON.stringify(rows);
  const columns =
    'tenant_id text, environment text, verified_seq bigint, totals jsonb, seen_seq bigint, seen_xmax bigint, prev_verified bigint, prev_seen bigint';
  await tx.raw(
    `UPDATE reconciliation_scope_checkpoints c
        SET verified_seq = u.verified_seq, totals = u.totals, seen_seq = u.seen_seq, seen_xmax = u.seen_xmax
       FROM jsonb_to_recordset(?::jsonb) AS u(${columns})
      WHERE c.tenant_id = u.tenant_id AND c.environment = u.environment AND c.verified_seq = u.prev_verified AND c.seen_seq = u.prev_seen`,
    [json],
  );
  await tx.raw(
    `INSERT INTO reconciliation_scope_checkpoints (tenant_id, environment, verified_seq, totals, seen_seq, seen_xmax)
     SELECT tenant_id, environment, verified_seq, totals, seen_seq, seen_xmax FROM jsonb_to_recordset(?::jsonb) AS u(${columns})
     ON CONFLICT (tenant_id, environment) DO NOTHING`,
    [json],
  );
}

/** A full run's totals replace a scope's, at the checkpoint seq the run read (unless another run moved it since). */
export async function resetScopeTotals(
  tx: Tx,
  resets: ReadonlyArray<{ scope: TenantScope; verifiedSeq: string; totals: Record<string, CurrencyTotals> }>,
): Promise<void> {
  if (resets.length === 0) return;
  await tx.raw(
    `UPDATE reconciliation_scope_checkpoints c SET totals = u.totals
       FROM jsonb_to_recordset(?::jsonb) AS u(tenant_id text, environment text, verified_seq bigint, totals jsonb)
      WHERE c.tenant_id = u.tenant_id AND c.environment = u.environment AND c.verified_seq = u.verified_seq`,
    [
      JSON.stringify(
        resets.map((each) => ({
          tenant_id: each.scope.tenantId,
          environment: each.scope.environment,
          verified_seq: each.verifiedSeq,
          totals: each.totals,
        })),
      ),
    ],
  );
}
