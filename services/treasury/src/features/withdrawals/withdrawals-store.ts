import type { Environment, WithdrawalDestination, WithdrawalMethod, WithdrawalSource, WithdrawalStatus } from '@wallet/contracts';
import { camelCased, type Db, prepared, recordReads, scopedRecords, type SeqPageFilter, type Tx } from '@wallet/kit';
import { caseDecisionStep, caseHoldStep, type MoneyRecord, type RecordTable } from '@wallet/money-commands';

/** Every read and write of withdrawals is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredWithdrawal extends MoneyRecord {
  seq: string;
  source: WithdrawalSource;
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

const COLUMNS = [
  'seq', 'id', 'tenant_id', 'environment', 'source', 'currency_code', 'amount', 'payout_method', 'destination', 'narration', 'requested_by', 'status', 'hold_entry_id',
  'failure_code', 'decided_by', 'decided_at', 'rejection_reason', 'decision_entry_id', 'decision_failure_code', 'created_at',
];
const COLUMN_LIST = COLUMNS.map((column) => `w.${column}`).join(', ');

function fromRow(row: object): StoredWithdrawal {
  return camelCased(row);
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
  const result = await prepared<{ rows: object[] }>(
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

const records = scopedRecords('withdrawals', COLUMNS, fromRow);

export const findWithdrawal = records.find;

export interface WithdrawalFilter extends SeqPageFilter {
  status?: WithdrawalStatus | undefined;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
export function listWithdrawals(db: Db, scope: TreasuryScope, filter: WithdrawalFilter): Promise<StoredWithdrawal[]> {
  return records.list(db, scope, filter, { status: filter.status });
}

/** Cases by id, of any status; within the scope when one is given. */
export const withdrawalsByIds = recordReads((db) => db('withdrawals').select(COLUMNS), null, fromRow).byIds;
