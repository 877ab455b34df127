import type { Environment, FloatDepositStatus, FloatRail } from '@wallet/contracts';
import { type Db, newestFirst, sqlArray, type Tx } from '@wallet/kit';
import { type RecordTable, settlementStep } from '@wallet/money-commands';

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

/** A float deposit as its creating statement writes it (with its posting command and its key's first answer). */
export const FLOAT_DEPOSIT_RECORDS: RecordTable<NewFloatDeposit> = {
  name: 'float_deposits',
  columns: { id: 'text', tenantId: 'text', environment: 'text', currencyCode: 'text', amount: 'numeric', rail: 'text', externalReference: 'text', depositedBy: 'text', note: 'text', createdAt: 'timestamptz' },
};

/** A float deposit's posting: the deposit is pending until the ledger answers it, and leaves pending once. */
export const FLOAT_DEPOSIT_POSTING = settlementStep('float_deposits');

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
  const rows: FloatDepositRow[] = await newestFirst(db, 'float_deposits', scope, filter, COLUMNS, { status: filter.status, currency_code: filter.currencyCode });
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
