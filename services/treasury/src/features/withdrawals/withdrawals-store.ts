import type { Environment, WithdrawalDestination, WithdrawalMethod, WithdrawalSource, WithdrawalStatus } from '@wallet/contracts';
import { camelCased, type Db, recordReads, scopedRecords, type SeqPageFilter, type SeqRows } from '@wallet/kit';
import {
  type CaseState,
  type CaseStateField,
  type CaseTable,
  caseListFilters,
  type MoneyRecord,
  type RecordTable,
} from '@wallet/money-commands';

/** Every read and write of withdrawals is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredWithdrawal extends MoneyRecord, CaseState {
  source: WithdrawalSource;
  payoutMethod: WithdrawalMethod;
  destination: WithdrawalDestination;
  narration: string | null;
  status: WithdrawalStatus;
}

export const WITHDRAWAL_COLUMNS = [
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
export function fromRow(row: object): StoredWithdrawal {
  return camelCased(row);
}

export type NewWithdrawal = Omit<StoredWithdrawal, CaseStateField>;

/** A case as its creating statement writes it (with its hold command, its audit record and its key's first answer). */
export const WITHDRAWAL_RECORDS: RecordTable<NewWithdrawal> = {
  name: 'withdrawals',
  columns: {
    id: 'text',
    tenantId: 'text',
    environment: 'text',
    source: 'text',
    currencyCode: 'text',
    amount: 'numeric',
    payoutMethod: 'text',
    destination: 'jsonb',
    narration: 'text',
    requestedBy: 'text',
    createdAt: 'timestamptz',
  },
};

const records = scopedRecords('withdrawals', WITHDRAWAL_COLUMNS, fromRow);

export const findWithdrawal = records.find;

/** Withdrawals as a maker-checker case table. */
export const WITHDRAWAL_TABLE: CaseTable<NewWithdrawal, StoredWithdrawal> = {
  records: WITHDRAWAL_RECORDS,
  columns: WITHDRAWAL_COLUMNS,
  fromRow,
  find: findWithdrawal,
};

export interface WithdrawalFilter extends SeqPageFilter {
  status?: WithdrawalStatus | undefined;
}

/** Newest first, one more row than asked when a next page exists; pending cases from their index, another status tested on a bounded number of cases (caseListFilters). */
export function listWithdrawals(db: Db, scope: TreasuryScope, filter: WithdrawalFilter): Promise<SeqRows<StoredWithdrawal>> {
  return records.list(db, scope, filter, caseListFilters(filter.status));
}

/** Cases by id, of any status; within the scope when one is given. */
export const withdrawalsByIds = recordReads((db) => db('withdrawals').select(WITHDRAWAL_COLUMNS), null, fromRow).byIds;
