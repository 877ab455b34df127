import type { Environment, PayoutDestination, PayoutMethod, PayoutStatus, WalletStatus } from '@wallet/contracts';
import { camelCased, type Db, prepared, recordReads, scopedRecords, type SeqPageFilter, type SeqRows, type Tx } from '@wallet/kit';
import {
  CASE_STATE_COLUMNS,
  caseNames,
  type CaseTable,
  caseListFilters,
  type ChargedMoneyRecord,
  type DraftOf,
  FEE_COLUMNS,
  filled,
  recordColumns,
  type RecordStep,
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
  /** The rail's reference for the delivery, once it answered. */
  railReference: filled<string | null>('text'),
  /** Why the rail failed the delivery, when it did. */
  railFailureReason: filled<string | null>('text'),
  /** The `payout_complete` or `payout_fail` entry once the ledger posted it. */
  outcomeEntryId: filled<string | null>('text'),
  outcomeFailureCode: filled<string | null>('text'),
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

/** A delivered case's complete or fail: recorded once, its entry or the ledger's refusal. */
export const PAYOUT_OUTCOME: RecordStep = {
  table: PAYOUT.table,
  waiting: "r.status IN ('completed', 'failed') AND r.outcome_entry_id IS NULL AND r.outcome_failure_code IS NULL",
  recorded: 'outcome_entry_id = u.journal_entry_id, outcome_failure_code = u.failure_code',
};

const records = scopedRecords(PAYOUT.table, PAYOUT_CASE_COLUMNS, toCase);

export const findCase = records.find;

/** Payout cases as a maker-checker case table. */
export const PAYOUT_CASE_TABLE: CaseTable<NewPayoutCase, StoredPayoutCase> = {
  records: PAYOUT_CASE_RECORDS,
  columns: PAYOUT_CASE_COLUMNS,
  fromRow: toCase,
  find: findCase,
};

export interface PayoutCaseFilter extends SeqPageFilter {
  walletId?: string | undefined;
  status?: PayoutStatus | undefined;
}

/** Newest first, one more row than asked when a next page exists; pending cases from their index, another status tested on a bounded number of cases (caseListFilters). */
export function listCases(db: Db, scope: PayoutScope, filter: PayoutCaseFilter): Promise<SeqRows<StoredPayoutCase>> {
  return records.list(db, scope, filter, caseListFilters(filter.status, { wallet_id: filter.walletId }));
}

/** An approved case the rail has not answered for yet, with what its delivery and postings need. */
export interface DeliverableCase extends ChargedMoneyRecord {
  walletId: string;
  walletOwnerId: string;
  destination: PayoutDestination;
  railStartedAt: Date | null;
}

/**
 * Approved cases whose settle the ledger posted (the money is in payout-clearing) and whose rail
 * outcome is not recorded, oldest first: the ones started before and interrupted come first.
 */
export async function deliverableCases(db: Db, limit: number, leaseMs: number): Promise<DeliverableCase[]> {
  // Leased for this round: another instance's round skips them (SKIP LOCKED while one leases,
  // the lease after), and takes them again once the lease has run out.
  const result = await prepared<{ rows: object[] }>(
    db,
    `WITH leased AS (
       UPDATE ${PAYOUT.table} SET rail_lease_until = clock_timestamp() + CAST(? AS integer) * interval '1 millisecond'
       WHERE id IN (
         SELECT id FROM ${PAYOUT.table}
         WHERE status = 'approved' AND decision_entry_id IS NOT NULL AND (rail_lease_until IS NULL OR rail_lease_until < clock_timestamp())
         ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING id, seq, tenant_id, environment, wallet_id, currency_code, amount, fee, commission, destination, rail_started_at
     )
     SELECT c.id, c.tenant_id, c.environment, c.wallet_id, w.owner_id AS wallet_owner_id, c.currency_code, c.amount, c.fee, c.commission, c.destination, c.rail_started_at
     FROM leased c JOIN wallets w ON w.id = c.wallet_id
     ORDER BY c.seq`,
    [leaseMs, limit],
  );
  return result.rows.map((row) => camelCased(row));
}

/** Marks the first attempt at the rail; a resumed attempt keeps the first time. */
export async function markRailStarted(db: Db, id: string): Promise<void> {
  await prepared(db, `UPDATE ${PAYOUT.table} SET rail_started_at = coalesce(rail_started_at, now()) WHERE id = ? AND status = 'approved'`, [
    id,
  ]);
}

export interface RailResult {
  status: 'completed' | 'failed';
  railReference: string;
  railFailureReason: string | null;
}

/**
 * Moves an approved case to the rail's outcome; false when it is not approved any more (another
 * instance recorded it first), and then the caller must not post the step again.
 */
export async function recordRailResult(tx: Tx, id: string, result: RailResult): Promise<boolean> {
  const updated = await prepared<{ rowCount: number | null }>(
    tx,
    `UPDATE ${PAYOUT.table} SET status = ?, rail_reference = ?, rail_failure_reason = ?, rail_started_at = coalesce(rail_started_at, now())
     WHERE id = ? AND status = 'approved' AND decision_entry_id IS NOT NULL`,
    [result.status, result.railReference, result.railFailureReason, id],
  );
  return (updated.rowCount ?? 0) > 0;
}

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
