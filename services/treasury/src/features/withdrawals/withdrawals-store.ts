import type { Environment, WithdrawalDestination, WithdrawalMethod, WithdrawalSource, WithdrawalStatus } from '@wallet/contracts';
import { camelCased, type Db, recordReads, scopedRecords, type CreatedRange, type SortedPageFilter, type SeqRows } from '@wallet/kit';
import {
  CASE_RAIL_COLUMNS,
  CASE_STATE_COLUMNS,
  caseNames,
  type CaseTable,
  caseListFilters,
  type DeliverableCase,
  type DeliveredCases,
  type DraftOf,
  filled,
  recordColumns,
  type RecordTable,
  type StoredOf,
  written,
} from '@wallet/money-commands';

/** Every read and write of withdrawals is bounded by one tenant and one environment. */
export interface TreasuryScope {
  tenantId: string;
  environment: Environment;
}

/**
 * A withdrawal's names (docs/money-movements.md): its entries name the case, each step of the flow
 * its own kind, and after the flow's steps the rail's outcome posts one more (complete or fail).
 */
export const WITHDRAWAL = caseNames('withdrawal', {
  table: 'withdrawals',
  laterKinds: { complete: 'withdrawal_complete', fail: 'withdrawal_fail' },
});

/** A withdrawal's columns: the stored case, what a read selects and what the creating statement writes. */
const WITHDRAWAL_CASE_COLUMNS = recordColumns({
  ...CASE_STATE_COLUMNS,
  source: written<WithdrawalSource>('text'),
  currencyCode: written<string>('text'),
  amount: written<string>('numeric'),
  payoutMethod: written<WithdrawalMethod>('text'),
  destination: written<WithdrawalDestination>('jsonb'),
  narration: written<string | null>('text'),
  status: filled<WithdrawalStatus>('text'),
  /** The rail's answer, and the `withdrawal_complete` or `withdrawal_fail` entry once the ledger posted it. */
  ...CASE_RAIL_COLUMNS,
});

export type StoredWithdrawal = StoredOf<typeof WITHDRAWAL_CASE_COLUMNS>;

export const WITHDRAWAL_COLUMNS = WITHDRAWAL_CASE_COLUMNS.names;

export function fromRow(row: object): StoredWithdrawal {
  return camelCased(row);
}

export type NewWithdrawal = DraftOf<typeof WITHDRAWAL_CASE_COLUMNS>;

/** A case as its creating statement writes it (with its hold command, its audit record and its key's first answer). */
export const WITHDRAWAL_RECORDS: RecordTable<NewWithdrawal> = { name: WITHDRAWAL.table, columns: WITHDRAWAL_CASE_COLUMNS.written };

const records = scopedRecords(WITHDRAWAL.table, WITHDRAWAL_COLUMNS, fromRow);

export const findWithdrawal = records.find;

/** Withdrawals as a maker-checker case table. */
export const WITHDRAWAL_TABLE: CaseTable<NewWithdrawal, StoredWithdrawal> = {
  records: WITHDRAWAL_RECORDS,
  columns: WITHDRAWAL_COLUMNS,
  fromRow,
  find: findWithdrawal,
};

export interface WithdrawalFilter extends SortedPageFilter, CreatedRange {
  status?: WithdrawalStatus | undefined;
}

/** Newest first, one more row than asked when a next page exists; pending cases from their index, another status tested on a bounded number of cases (caseListFilters). */
export function listWithdrawals(db: Db, scope: TreasuryScope, filter: WithdrawalFilter): Promise<SeqRows<StoredWithdrawal>> {
  return records.list(db, scope, filter, caseListFilters(filter.status));
}

/** Cases by id, of any status; within the scope when one is given. */
export const withdrawalsByIds = recordReads((db) => db(WITHDRAWAL.table).select(WITHDRAWAL_COLUMNS), null, fromRow).byIds;

/** An approved withdrawal the rail has not answered for yet: its source and method name the accounts its outcome moves. */
export interface DeliverableWithdrawal extends DeliverableCase {
  source: WithdrawalSource;
  payoutMethod: WithdrawalMethod;
  destination: WithdrawalDestination;
}

/** What a leased withdrawal reads besides what every delivered case does. */
export const DELIVERABLE_WITHDRAWAL_READ: DeliveredCases<DeliverableWithdrawal>['read'] = { columns: ['c.source', 'c.payout_method'] };
