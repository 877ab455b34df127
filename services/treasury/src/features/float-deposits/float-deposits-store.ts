import type { Environment, FloatDepositStatus, FloatRail } from '@wallet/contracts';
import { type Db, type OutboxMessage, outboxInsertStatement, prepared, type SqlStatement, sqlArray, type Tx } from '@wallet/kit';
import type { Knex } from 'knex';

/** Every read and write of float deposits is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredFloatDeposit {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  currencyCode: string;
  amount: string;
  rail: FloatRail;
  externalReference: string | null;
  depositedBy: string | null;
  note: string | null;
  status: FloatDepositStatus;
  journalEntryId: string | null;
  failureCode: string | null;
  createdAt: Date;
}

interface FloatDepositRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  currency_code: string;
  amount: string;
  rail: FloatRail;
  external_reference: string | null;
  deposited_by: string | null;
  note: string | null;
  status: FloatDepositStatus;
  journal_entry_id: string | null;
  failure_code: string | null;
  created_at: Date;
}

const COLUMNS = ['seq', 'id', 'tenant_id', 'environment', 'currency_code', 'amount', 'rail', 'external_reference', 'deposited_by', 'note', 'status', 'journal_entry_id', 'failure_code', 'created_at'];

function fromRow(row: FloatDepositRow): StoredFloatDeposit {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    currencyCode: row.currency_code,
    amount: row.amount,
    rail: row.rail,
    externalReference: row.external_reference,
    depositedBy: row.deposited_by,
    note: row.note,
    status: row.status,
    journalEntryId: row.journal_entry_id,
    failureCode: row.failure_code,
    createdAt: row.created_at,
  };
}

export type NewFloatDeposit = Omit<StoredFloatDeposit, 'seq' | 'tenantId' | 'environment' | 'status' | 'journalEntryId' | 'failureCode'>;

/**
 * Inserts a pending float deposit with its posting command in the outbox and the idempotency
 * key's answer, as one statement: the key's part yields a row only while the caller holds the
 * key, the deposit is inserted from that row and the command only once the deposit is. Returns
 * the deposit's seq, or null when the key was taken over (then nothing was written).
 */
export async function insertFloatDepositWithCommand(db: Db, scope: TreasuryScope, deposit: NewFloatDeposit, parts: { answer: SqlStatement; command: OutboxMessage }): Promise<string | null> {
  const outbox = outboxInsertStatement([parts.command], { onlyIfRowsIn: 'created' });
  const result = await prepared<{ rows: Array<{ seq: string }> }>(
    db,
    `WITH answer AS (${parts.answer.sql}),
     created AS (
       INSERT INTO float_deposits (id, tenant_id, environment, currency_code, amount, rail, external_reference, deposited_by, note, created_at)
       SELECT ?, ?, ?, ?, CAST(? AS numeric), ?, ?, ?, ?, CAST(? AS timestamptz)
       FROM answer
       RETURNING seq
     ),
     command AS (${outbox.sql})
     SELECT seq FROM created`,
    [
      ...parts.answer.bindings,
      deposit.id,
      scope.tenantId,
      scope.environment,
      deposit.currencyCode,
      deposit.amount,
      deposit.rail,
      deposit.externalReference,
      deposit.depositedBy,
      deposit.note,
      deposit.createdAt.toISOString(),
      ...outbox.bindings,
    ],
  );
  return result.rows[0]?.seq ?? null;
}

/**
 * Records a completion the ledger confirmed and stores the caller's answer, as one statement.
 * The answer is stored even when the event path recorded the completion first (it recorded the
 * same entry). False when the key's part stored nothing (another attempt holds the key).
 */
export async function completeFloatDepositWithAnswer(db: Db, scope: TreasuryScope, deposit: { id: string }, journalEntryId: string, answer: SqlStatement): Promise<boolean> {
  const result = await prepared<{ rows: Array<{ answered: number }> }>(
    db,
    `WITH finished AS (
       UPDATE float_deposits SET status = 'completed', journal_entry_id = ?, failure_code = NULL, finished_at = now()
       WHERE id = ? AND tenant_id = ? AND environment = ? AND status = 'pending'
       RETURNING id
     ),
     answer AS (${answer.sql})
     SELECT CAST(count(*) AS integer) AS answered FROM answer`,
    [journalEntryId, deposit.id, scope.tenantId, scope.environment, ...answer.bindings],
  );
  return (result.rows[0]?.answered ?? 0) > 0;
}

export type FloatDepositOutcome = { status: 'completed'; journalEntryId: string } | { status: 'failed'; failureCode: string };

export interface ScopedFloatDepositOutcome {
  scope: TreasuryScope;
  id: string;
  outcome: FloatDepositOutcome;
}

/**
 * Records the ledger's outcomes on deposits still pending in their scope, in one statement;
 * any other is left as it is. The one place a deposit leaves pending, so it does so once.
 */
export async function finishFloatDeposits(tx: Db | Tx, finishing: readonly ScopedFloatDepositOutcome[]): Promise<number> {
  if (finishing.length === 0) return 0;
  const result = await prepared<{ rowCount: number | null }>(
    tx,
    `UPDATE float_deposits d
     SET status = u.status, journal_entry_id = u.journal_entry_id, failure_code = u.failure_code, finished_at = now()
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS u(id, tenant_id, environment, status, journal_entry_id, failure_code)
     WHERE d.id = u.id AND d.tenant_id = u.tenant_id AND d.environment = u.environment AND d.status = 'pending'`,
    [
      finishing.map((each) => each.id),
      finishing.map((each) => each.scope.tenantId),
      finishing.map((each) => each.scope.environment),
      finishing.map((each) => each.outcome.status),
      finishing.map((each) => (each.outcome.status === 'completed' ? each.outcome.journalEntryId : null)),
      finishing.map((each) => (each.outcome.status === 'failed' ? each.outcome.failureCode : null)),
    ] as unknown as readonly Knex.RawBinding[],
  );
  return result.rowCount ?? 0;
}

export async function findFloatDeposit(db: Db | Tx, scope: TreasuryScope, id: string): Promise<StoredFloatDeposit | null> {
  const row: FloatDepositRow | undefined = await db('float_deposits').where({ tenant_id: scope.tenantId, environment: scope.environment, id }).first(COLUMNS);
  return row ? fromRow(row) : null;
}

export interface FloatDepositFilter {
  status?: FloatDepositStatus | undefined;
  currencyCode?: string | undefined;
  beforeSeq?: string | undefined;
  limit: number;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
export async function listFloatDeposits(db: Db, scope: TreasuryScope, filter: FloatDepositFilter): Promise<StoredFloatDeposit[]> {
  const query = db('float_deposits').where({ tenant_id: scope.tenantId, environment: scope.environment }).orderBy('seq', 'desc').limit(filter.limit + 1).select(COLUMNS);
  if (filter.status !== undefined) query.where('status', filter.status);
  if (filter.currencyCode !== undefined) query.where('currency_code', filter.currencyCode);
  if (filter.beforeSeq !== undefined) query.where('seq', '<', filter.beforeSeq);
  const rows: FloatDepositRow[] = await query;
  return rows.map(fromRow);
}

/** Deposits by id, of any status; within the scope when one is given. */
export async function floatDepositsByIds(db: Db, scope: TreasuryScope | null, ids: readonly string[]): Promise<StoredFloatDeposit[]> {
  if (ids.length === 0) return [];
  const query = db('float_deposits').whereRaw('id = ANY(?::text[])', [sqlArray(ids)]).select(COLUMNS);
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: FloatDepositRow[] = await query;
  return rows.map(fromRow);
}
