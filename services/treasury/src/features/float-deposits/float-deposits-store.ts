import type { Environment, FloatDepositStatus, FloatRail } from '@wallet/contracts';
import { camelCased, type Db, recordReads, scopedRecords, type CreatedRange, type SortedPageFilter, type SeqRows } from '@wallet/kit';
import {
  type DraftOf,
  filled,
  type MovementNames,
  recordColumns,
  type RecordTable,
  SCOPED_RECORD_COLUMNS,
  settlementStep,
  type StoredOf,
  written,
} from '@wallet/money-commands';

/** Every read and write of float deposits is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

/** A float deposit's names (docs/money-movements.md). */
export const FLOAT_DEPOSIT: MovementNames = { type: 'float_deposit', table: 'float_deposits', kind: 'tenant_float_deposit' };

/** A float deposit's columns: the stored deposit, what a read selects and what the creating statement writes. */
const FLOAT_DEPOSIT_COLUMNS = recordColumns({
  ...SCOPED_RECORD_COLUMNS,
  currencyCode: written<string>('text'),
  amount: written<string>('numeric'),
  rail: written<FloatRail>('text'),
  externalReference: written<string | null>('text'),
  depositedBy: written<string | null>('text'),
  note: written<string | null>('text'),
  status: filled<FloatDepositStatus>('text'),
  journalEntryId: filled<string | null>('text'),
  failureCode: filled<string | null>('text'),
  createdAt: written<Date>('timestamptz'),
});

export type StoredFloatDeposit = StoredOf<typeof FLOAT_DEPOSIT_COLUMNS>;

const COLUMNS = FLOAT_DEPOSIT_COLUMNS.names;

function fromRow(row: object): StoredFloatDeposit {
  return camelCased(row);
}

export type NewFloatDeposit = DraftOf<typeof FLOAT_DEPOSIT_COLUMNS>;

/** A float deposit as its creating statement writes it (with its posting command and its key's first answer). */
export const FLOAT_DEPOSIT_RECORDS: RecordTable<NewFloatDeposit> = { name: FLOAT_DEPOSIT.table, columns: FLOAT_DEPOSIT_COLUMNS.written };

/** A float deposit's posting: the deposit is pending until the ledger answers it, and leaves pending once. */
export const FLOAT_DEPOSIT_POSTING = settlementStep(FLOAT_DEPOSIT.table);

const records = scopedRecords(FLOAT_DEPOSIT.table, COLUMNS, fromRow);

export const findFloatDeposit = records.find;

export interface FloatDepositFilter extends SortedPageFilter, CreatedRange {
  status?: FloatDepositStatus | undefined;
  currencyCode?: string | undefined;
}

/** Newest first, one more row than asked when a next page exists; status and currency are tested on a bounded number of deposits (boundedSortedList). */
export function listFloatDeposits(db: Db, scope: TreasuryScope, filter: FloatDepositFilter): Promise<SeqRows<StoredFloatDeposit>> {
  return records.list(db, scope, filter, { tested: { status: filter.status, currency_code: filter.currencyCode } });
}

/** Deposits by id, of any status; within the scope when one is given. */
export const floatDepositsByIds = recordReads((db) => db(FLOAT_DEPOSIT.table).select(COLUMNS), null, fromRow).byIds;
