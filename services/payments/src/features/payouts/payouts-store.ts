import type { Environment, PayoutDestination, PayoutMethod, PayoutStatus, WalletStatus } from '@wallet/contracts';
import {
  camelCased,
  type Db,
  prepared,
  recordReads,
  scopedRecords,
  type CreatedRange,
  type SortedPageFilter,
  type SeqRows,
  type Tx,
} from '@wallet/kit';
import {
  CASE_RAIL_COLUMNS,
  CASE_STATE_COLUMNS,
  caseNames,
  type CaseTable,
  caseListFilters,
  type ChargedMoneyRecord,
  type DeliverableCase,
  type DeliveredCases,
  type DraftOf,
  FEE_COLUMNS,
  filled,
  recordColumns,
  type RecordTable,
  type StoredOf,
  type WalletAccount,
  written,
} from '@wallet/money-commands';

/** Every read and write of payout cases is bounded by one tenant and one environment. */
export interface PayoutScope {
  tenantId: string;
  environment: Environment;
}

/**
 * A payout's names (docs/money-movements.md): its cases' entries name the case (`payout_case`),
 * and after the flow's steps the rail's outcome posts one more (complete or fail).
 */
export const PAYOUT = caseNames('payout', {
  table: 'payout_cases',
  referenceType: 'payout_case',
  laterKinds: { complete: 'payout_complete', fail: 'payout_fail' },
});

/** A payout case's columns: the stored case, what a read selects and what the creating statement writes. */
const PAYOUT_COLUMNS = recordColumns({
  ...CASE_STATE_COLUMNS,
  walletId: written<string>('text'),
  currencyCode: written<string>('text'),
  amount: written<string>('numeric'),
  ...FEE_COLUMNS,
  payoutMethod: written<PayoutMethod>('text'),
  destination: written<PayoutDestination>('jsonb'),
  narration: written<string | null>('text'),
  status: filled<PayoutStatus>('text'),
  /** The rail's answer, and the `payout_complete` or `payout_fail` entry once the ledger posted it. */
  ...CASE_RAIL_COLUMNS,
});

export type StoredPayoutCase = StoredOf<typeof PAYOUT_COLUMNS>;

export const PAYOUT_CASE_COLUMNS = PAYOUT_COLUMNS.names;

export function toCase(row: object): StoredPayoutCase {
  return camelCased(row);
}

/** What a payout needs of its wallet: the owner names its ledger account. */
export type PayoutWallet = WalletAccount;

/** The wallet in the caller's scope; a wallet of another tenant or environment is absent. */
export async function findPayoutWallet(db: Db | Tx, scope: PayoutScope, walletId: string): Promise<PayoutWallet | null> {
  const result = await prepared<{ rows: Array<{ id: string; owner_id: string; currency_code: string; status: WalletStatus }> }>(
    db,
    'SELECT id, owner_id, currency_code, status FROM wallets WHERE id = ? AND tenant_id = ? AND environment = ?',
    [walletId, scope.tenantId, scope.environment],
  );
  const row = result.rows[0];
  return row ? { id: row.id, ownerId: row.owner_id, currencyCode: row.currency_code, status: row.status } : null;
}

export type NewPayoutCase = DraftOf<typeof PAYOUT_COLUMNS>;

/** A case as its creating statement writes it (with its hold command and its key's first answer). */
export const PAYOUT_CASE_RECORDS: RecordTable<NewPayoutCase> = { name: PAYOUT.table, columns: PAYOUT_COLUMNS.written };

const records = scopedRecords(PAYOUT.table, PAYOUT_CASE_COLUMNS, toCase);

export const findCase = records.find;

/** Payout cases as a maker-checker case table. */
export const PAYOUT_CASE_TABLE: CaseTable<NewPayoutCase, StoredPayoutCase> = {
  records: PAYOUT_CASE_RECORDS,
  columns: PAYOUT_CASE_COLUMNS,
  fromRow: toCase,
  find: findCase,
};

export interface PayoutCaseFilter extends SortedPageFilter, CreatedRange {
  walletId?: string | undefined;
  status?: PayoutStatus | undefined;
}

/** Newest first, one more row than asked when a next page exists; pending cases from their index, another status tested on a bounded number of cases (caseListFilters). */
export function listCases(db: Db, scope: PayoutScope, filter: PayoutCaseFilter): Promise<SeqRows<StoredPayoutCase>> {
  return records.list(db, scope, filter, caseListFilters(filter.status, { wallet_id: filter.walletId }));
}

/** An approved case the rail has not answered for yet, with what its delivery and its outcome's postings need. */
export interface DeliverablePayout extends DeliverableCase, ChargedMoneyRecord {
  walletId: string;
  walletOwnerId: string;
  destination: PayoutDestination;
}

/** What a leased case reads besides what every delivered case does: its wallet, whose owner names the account a failure refunds, and its fee. */
export const DELIVERABLE_PAYOUT_READ: DeliveredCases<DeliverablePayout>['read'] = {
  columns: ['c.wallet_id', 'w.owner_id AS wallet_owner_id', 'c.fee', 'c.commission'],
  join: 'JOIN wallets w ON w.id = c.wallet_id',
};

// ---- what reconciliation reads ----
// The by-id reads bind their ids as one array: a list of a thousand parameters cost more to plan than to run.

/** A payout case with what its steps posted: the hold, then the decision, then the rail's outcome. */
export interface ReconciledPayoutCase extends ChargedMoneyRecord {
  seq: string;
  status: PayoutStatus;
  walletId: string;
  walletOwnerId: string;
  destination: PayoutDestination;
  holdEntryId: string | null;
  decisionEntryId: string | null;
  outcomeEntryId: string | null;
  createdAt: Date;
}

function payoutCasesWithWallets(db: Db) {
  return db(`${PAYOUT.table} as p`)
    .join('wallets as w', 'w.id', 'p.wallet_id')
    .select(
      'p.seq',
      'p.id',
      'p.tenant_id',
      'p.environment',
      'p.status',
      'p.wallet_id',
      'w.owner_id as wallet_owner_id',
      'p.currency_code',
      'p.amount',
      'p.fee',
      'p.commission',
      'p.destination',
      'p.hold_entry_id',
      'p.decision_entry_id',
      'p.outcome_entry_id',
      'p.created_at',
    );
}

function toReconciledPayoutCase(row: object): ReconciledPayoutCase {
  return camelCased(row);
}

/** Payout cases by id, of any status; within the scope when one is given. */
export const payoutCasesByIds = recordReads(payoutCasesWithWallets, 'p', toReconciledPayoutCase).byIds;
