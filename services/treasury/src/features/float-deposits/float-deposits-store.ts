import type { Environment, FloatDepositStatus, FloatRail } from '@wallet/contracts';
import { camelCased, type Db, recordReads, scopedRecords, type SeqPageFilter, type SeqRows } from '@wallet/kit';
import { type MoneyRecord, type RecordTable, settlementStep } from '@wallet/money-commands';

/** Every read and write of float deposits is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredFloatDeposit extends MoneyRecord {
  seq: string;
  rail: FloatRail;
  externalReference: string | null;
  depositedBy: string | null;
  note: string | null;
  status: FloatDepositStatus;
  journalEntryId: string | null;
  failureCode: string | null;
  createdAt: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'environment',
  'currency_code',
  'amount',
  'rail',
  'external_reference',
  'deposited_by',
  'note',
  'status',
  'journal_entry_id',
  'failure_code',
  'created_at',
];

function fromRow(row: object): StoredFloatDeposit {
  return camelCased(row);
}

export type NewFloatDeposit = Omit<StoredFloatDeposit, 'seq' | 'tenantId' | 'environment' | 'status' | 'journalEntryId' | 'failureCode'>;

/** A float deposit as its creating statement writes it (with its posting command and its key's first answer). */
export const FLOAT_DEPOSIT_RECORDS: RecordTable<NewFloatDeposit> = {
  name: 'float_deposits',
  columns: {
    id: 'text',
    tenantId: 'text',
    environment: 'text',
    currencyCode: 'text',
    amount: 'numeric',
    rail: 'text',
    externalReference: 'text',
    depositedBy: 'text',
    note: 'text',
    createdAt: 'timestamptz',
  },
};

/** A float deposit's posting: the deposit is pending until the ledger answers it, and leaves pending once. */
export const FLOAT_DEPOSIT_POSTING = settlementStep('float_deposits');

const records = scopedRecords('float_deposits', COLUMNS, fromRow);

export const findFloatDeposit = records.find;

export interface FloatDepositFilter extends SeqPageFilter {
  status?: FloatDepositStatus | undefined;
  currencyCode?: string | undefined;
}

/** Newest first, one more row than asked when a next page exists; status and currency are tested on a bounded number of deposits (boundedNewestFirst). */
export function listFloatDeposits(db: Db, scope: TreasuryScope, filter: FloatDepositFilter): Promise<SeqRows<StoredFloatDeposit>> {
  return records.list(db, scope, filter, { tested: { status: filter.status, currency_code: filter.currencyCode } });
}

/** Deposits by id, of any status; within the scope when one is given. */
export const floatDepositsByIds = recordReads((db) => db('float_deposits').select(COLUMNS), null, fromRow).byIds;
