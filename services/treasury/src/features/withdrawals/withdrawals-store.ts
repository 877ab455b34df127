import type { Environment, WithdrawalDestination, WithdrawalMethod, WithdrawalSource, WithdrawalStatus } from '@wallet/contracts';
import { type Db, newestFirst, prepared, sqlArray, type Tx } from '@wallet/kit';
import { caseDecisionStep, caseHoldStep, type RecordTable } from '@wallet/money-commands';

/** Every read and write of withdrawals is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredWithdrawal {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  source: WithdrawalSource;
  currencyCode: string;
  amount: string;
  payoutMethod: WithdrawalMethod;
  destination: WithdrawalDestination;
  narration: string | null;
  requestedBy: string;
  status: WithdrawalStatus;
  holdEntryId: string | null;
  failureCode: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  rejectionReason: string | null;
  decisionEntryId: string | null;
  /** The ledger's refusal of the settle or release (never expected: suspense holds the amount). */
  decisionFailureCode: string | null;
  createdAt: Date;
}

interface WithdrawalRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  source: WithdrawalSource;
  currency_code: string;
  amount: string;
  payout_method: WithdrawalMethod;
  destination: WithdrawalDestination;
  narration: string | null;
  requested_by: string;
  status: WithdrawalStatus;
  hold_entry_id: string | null;
  failure_code: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  rejection_reason: string | null;
  decision_entry_id: string | null;
  decision_failure_code: string | null;
  created_at: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'environment',
  'source',
  'currency_code',
  'amount',
  'payout_method',
  'destination',
  'narration',
  'requested_by',
  'status',
  'hold_entry_id',
  'failure_code',
  'decided_by',
  'decided_at',
  'rejection_reason',
  'decision_entry_id',
  'decision_failure_code',
  'created_at',
];
const COLUMN_LIST = COLUMNS.map((column) => `w.${column}`).join(', ');

function fromRow(row: WithdrawalRow): StoredWithdrawal {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    source: row.source,
    currencyCode: row.currency_code,
    amount: row.amount,
    payoutMethod: row.payout_method,
    destination: row.destination,
    narration: row.narration,
    requestedBy: row.requested_by,
    status: row.status,
    holdEntryId: row.hold_entry_id,
    failureCode: row.failure_code,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    rejectionReason: row.rejection_reason,
    decisionEntryId: row.decision_entry_id,
    decisionFailureCode: row.decision_failure_code,
    createdAt: row.created_at,
  };
}

export type NewWithdrawal = Omit<StoredWithdrawal, 'seq' | 'tenantId' | 'environment' | 'status' | 'holdEntryId' | 'failureCode' | 'decidedBy' | 'decidedAt' | 'rejectionReason' | 'decisionEntryId' | 'decisionFailureCode'>;

/** A case as its creating statement writes it (with its hold command, its audit record and its key's first answer). */
export const WITHDRAWAL_RECORDS: RecordTable<NewWithdrawal> = {
  name: 'withdrawals',
  columns: {
    id: 'text', tenantId: 'text', environment: 'text', source: 'text', currencyCode: 'text', amount: 'numeric', payoutMethod: 'text', destination: 'jsonb',
    narration: 'text', requestedBy: 'text', createdAt: 'timestamptz',
  },
};

export const WITHDRAWAL_HOLD = caseHoldStep('withdrawals');
export const WITHDRAWAL_DECISION = caseDecisionStep('withdrawals');

export interface Decision {
  status: 'approved' | 'rejected';
  decidedBy: string;
  rejectionReason: string | null;
}

/**
 * Moves a pending case whose hold is posted to its decision; null when it is not (decided
 * already, hold unconfirmed or refused, not this tenant's). The one place a case leaves
 * pending by decision: concurrent checkers serialize on the row and exactly one matches.
 */
export async function decideWithdrawal(tx: Tx, scope: TreasuryScope, id: string, decision: Decision): Promise<StoredWithdrawal | null> {
  const result = await prepared<{ rows: WithdrawalRow[] }>(
    tx,
    `UPDATE withdrawals w
     SET status = ?, decided_by = ?, decided_at = now(), rejection_reason = ?
     WHERE w.id = ? AND w.tenant_id = ? AND w.environment = ? AND w.status = 'pending' AND w.hold_entry_id IS NOT NULL
     RETURNING ${COLUMN_LIST}`,
    [decision.status, decision.decidedBy, decision.rejectionReason, id, scope.tenantId, scope.environment],
  );
  const row = result.rows[0];
  return row ? fromRow(row) : null;
}

export async function findWithdrawal(db: Db | Tx, scope: TreasuryScope, id: string): Promise<StoredWithdrawal | null> {
  const row: WithdrawalRow | undefined = await db('withdrawals').where({ tenant_id: scope.tenantId, environment: scope.environment, id }).first(COLUMNS);
  return row ? fromRow(row) : null;
}

export interface WithdrawalFilter {
  status?: WithdrawalStatus | undefined;
  beforeSeq?: string | undefined;
  limit: number;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
export async function listWithdrawals(db: Db, scope: TreasuryScope, filter: WithdrawalFilter): Promise<StoredWithdrawal[]> {
  const rows: WithdrawalRow[] = await newestFirst(db, 'withdrawals', scope, filter, COLUMNS, { status: filter.status });
  return rows.map(fromRow);
}

/** Cases by id, of any status; within the scope when one is given. */
export async function withdrawalsByIds(db: Db, scope: TreasuryScope | null, ids: readonly string[]): Promise<StoredWithdrawal[]> {
  if (ids.length === 0) return [];
  const query = db('withdrawals').whereRaw('id = ANY(?::text[])', [sqlArray(ids)]).select(COLUMNS);
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: WithdrawalRow[] = await query;
  return rows.map(fromRow);
}
