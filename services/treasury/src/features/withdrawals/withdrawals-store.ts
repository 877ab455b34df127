import type { Environment, WithdrawalDestination, WithdrawalMethod, WithdrawalSource, WithdrawalStatus } from '@wallet/contracts';
import { type Db, type OutboxMessage, outboxInsertStatement, prepared, type SqlStatement, sqlArray, type Tx } from '@wallet/kit';
import type { StepOutcome } from '@wallet/money-commands';
import type { Knex } from 'knex';

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

/**
 * Inserts a pending case with its hold command in the outbox and the idempotency key's answer,
 * as one statement: the key's part yields a row only while the caller holds the key, the case
 * is inserted from that row and the command only once the case is. Returns the case's seq, or
 * null when the key was taken over (then nothing was written).
 */
export async function insertWithdrawalWithHold(db: Db, scope: TreasuryScope, draft: NewWithdrawal, parts: { answer: SqlStatement; commands: OutboxMessage[] }): Promise<string | null> {
  const outbox = outboxInsertStatement(parts.commands, { onlyIfRowsIn: 'created' });
  const result = await prepared<{ rows: Array<{ seq: string }> }>(
    db,
    `WITH answer AS (${parts.answer.sql}),
     created AS (
       INSERT INTO withdrawals (id, tenant_id, environment, source, currency_code, amount, payout_method, destination, narration, requested_by, created_at)
       SELECT ?, ?, ?, ?, ?, CAST(? AS numeric), ?, CAST(? AS jsonb), ?, ?, CAST(? AS timestamptz)
       FROM answer
       RETURNING seq
     ),
     command AS (${outbox.sql})
     SELECT seq FROM created`,
    [
      ...parts.answer.bindings,
      draft.id,
      scope.tenantId,
      scope.environment,
      draft.source,
      draft.currencyCode,
      draft.amount,
      draft.payoutMethod,
      JSON.stringify(draft.destination),
      draft.narration,
      draft.requestedBy,
      draft.createdAt.toISOString(),
      ...outbox.bindings,
    ],
  );
  return result.rows[0]?.seq ?? null;
}

/**
 * Records the hold the ledger posted and stores the caller's answer, as one statement. The
 * answer is stored even when the event path recorded the hold first (the same entry). False
 * when the key's part stored nothing (another attempt holds the key).
 */
export async function recordHoldWithAnswer(db: Db, scope: TreasuryScope, withdrawal: { id: string }, journalEntryId: string, answer: SqlStatement): Promise<boolean> {
  const result = await prepared<{ rows: Array<{ answered: number }> }>(
    db,
    `WITH held AS (
       UPDATE withdrawals SET hold_entry_id = ?
       WHERE id = ? AND tenant_id = ? AND environment = ? AND status = 'pending' AND hold_entry_id IS NULL
       RETURNING id
     ),
     answer AS (${answer.sql})
     SELECT CAST(count(*) AS integer) AS answered FROM answer`,
    [journalEntryId, withdrawal.id, scope.tenantId, scope.environment, ...answer.bindings],
  );
  return (result.rows[0]?.answered ?? 0) > 0;
}

export type HoldOutcome = { status: 'held'; journalEntryId: string } | { status: 'refused'; failureCode: string };
export type DecisionOutcome = StepOutcome;

/** A ledger outcome for a case step, with the scope the ledger's result carries. */
export interface ScopedStepOutcome<Outcome> {
  scope: TreasuryScope;
  id: string;
  outcome: Outcome;
}

/**
 * Records the ledger's answers to holds, in one statement (replies and batched events alike):
 * a hold not yet recorded on a pending case is recorded, a refused one fails the case. Anything
 * already recorded is left as it is, so each case leaves "hold unconfirmed" exactly once.
 */
export async function finishHolds(db: Db | Tx, finishing: readonly ScopedStepOutcome<HoldOutcome>[]): Promise<number> {
  if (finishing.length === 0) return 0;
  const result = await prepared<{ rowCount: number | null }>(
    db,
    `UPDATE withdrawals w
     SET hold_entry_id = u.journal_entry_id,
         status = CASE WHEN u.failure_code IS NULL THEN w.status ELSE 'failed' END,
         failure_code = u.failure_code
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS u(id, tenant_id, environment, journal_entry_id, failure_code)
     WHERE w.id = u.id AND w.tenant_id = u.tenant_id AND w.environment = u.environment
       AND w.status = 'pending' AND w.hold_entry_id IS NULL`,
    [
      finishing.map((each) => each.id),
      finishing.map((each) => each.scope.tenantId),
      finishing.map((each) => each.scope.environment),
      finishing.map((each) => (each.outcome.status === 'held' ? each.outcome.journalEntryId : null)),
      finishing.map((each) => (each.outcome.status === 'refused' ? each.outcome.failureCode : null)),
    ] as unknown as readonly Knex.RawBinding[],
  );
  return result.rowCount ?? 0;
}

/** Records the ledger's answers to settles and releases on decided cases; a recorded one is left as it is. */
export async function finishDecisions(db: Db | Tx, finishing: readonly ScopedStepOutcome<DecisionOutcome>[]): Promise<number> {
  if (finishing.length === 0) return 0;
  const result = await prepared<{ rowCount: number | null }>(
    db,
    `UPDATE withdrawals w
     SET decision_entry_id = u.journal_entry_id, decision_failure_code = u.failure_code
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS u(id, tenant_id, environment, journal_entry_id, failure_code)
     WHERE w.id = u.id AND w.tenant_id = u.tenant_id AND w.environment = u.environment
       AND w.status IN ('approved', 'rejected') AND w.decision_entry_id IS NULL AND w.decision_failure_code IS NULL`,
    [
      finishing.map((each) => each.id),
      finishing.map((each) => each.scope.tenantId),
      finishing.map((each) => each.scope.environment),
      finishing.map((each) => (each.outcome.status === 'posted' ? each.outcome.journalEntryId : null)),
      finishing.map((each) => (each.outcome.status === 'refused' ? each.outcome.failureCode : null)),
    ] as unknown as readonly Knex.RawBinding[],
  );
  return result.rowCount ?? 0;
}

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
  const query = db('withdrawals').where({ tenant_id: scope.tenantId, environment: scope.environment }).orderBy('seq', 'desc').limit(filter.limit + 1).select(COLUMNS);
  if (filter.status !== undefined) query.where('status', filter.status);
  if (filter.beforeSeq !== undefined) query.where('seq', '<', filter.beforeSeq);
  const rows: WithdrawalRow[] = await query;
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
