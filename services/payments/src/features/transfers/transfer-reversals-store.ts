import type { Environment, TransferStatus } from '@wallet/contracts';
import { camelCased, createdAtMsColumn, type Db, newestFirst, recordReads, scopedRecords, type SeqPageFilter, type Tx } from '@wallet/kit';
import {
  type DraftOf,
  type MovementNames,
  filled,
  type RecordClaim,
  recordColumns,
  type RecordTable,
  SCOPED_RECORD_COLUMNS,
  settlementStep,
  type StoredOf,
  written,
} from '@wallet/money-commands';
import { TRANSFER, type TransferScope, type TransferWallet } from './transfers-store';

/** A reversal's names (docs/money-movements.md). */
export const TRANSFER_REVERSAL: MovementNames = { type: 'transfer_reversal', table: 'transfer_reversals', kind: 'transfer_reversal' };

/** A reversal's columns: the stored reversal, what a read selects and what the creating statement writes. */
const REVERSAL_COLUMNS = recordColumns({
  ...SCOPED_RECORD_COLUMNS,
  transferId: written<string>('text'),
  currencyCode: written<string>('text'),
  amount: written<string>('numeric'),
  feeRefunded: written<string>('numeric'),
  commissionRefunded: written<string>('numeric'),
  reason: written<string>('text'),
  status: filled<TransferStatus>('text'),
  journalEntryId: filled<string | null>('text'),
  failureCode: filled<string | null>('text'),
  createdAt: written<Date>('timestamptz'),
});

export type StoredReversal = StoredOf<typeof REVERSAL_COLUMNS>;

export type NewReversal = DraftOf<typeof REVERSAL_COLUMNS>;

const COLUMNS = REVERSAL_COLUMNS.names;

/** What a reversal takes of its transfer: its amount out of what is left, and the fee once. */
const REVERSAL_CLAIM: RecordClaim<NewReversal> = {
  claimTable: TRANSFER.table,
  key: 'transferId',
  when: "c.status = 'completed'",
  totals: [
    { total: 'reversed_amount', adds: 'amount', upTo: 'amount' },
    { total: 'refunded_fee', adds: 'feeRefunded', upTo: 'fee' },
  ],
};

export const REVERSAL_RECORDS: RecordTable<NewReversal> = {
  name: TRANSFER_REVERSAL.table,
  columns: REVERSAL_COLUMNS.written,
  claim: REVERSAL_CLAIM,
};

export const REVERSAL_POSTING = settlementStep(TRANSFER_REVERSAL.table);

export const findReversal = scopedRecords(TRANSFER_REVERSAL.table, COLUMNS, (row) => camelCased<StoredReversal>(row)).find;

/** A transfer's reversals, newest first; one more row than asked, so the caller knows whether a next page exists. */
export async function listReversals(db: Db, scope: TransferScope, transferId: string, filter: SeqPageFilter): Promise<StoredReversal[]> {
  const rows: object[] = await newestFirst(db, TRANSFER_REVERSAL.table, scope, filter, COLUMNS, { transfer_id: transferId });
  return rows.map((row) => camelCased<StoredReversal>(row));
}

/** A transfer as a reversal of it is decided on: what it moved, what is reversed already, its entry and its wallets. */
export interface ReversibleTransfer {
  id: string;
  tenantId: string;
  environment: Environment;
  currencyCode: string;
  status: TransferStatus;
  amount: string;
  fee: string;
  commission: string;
  reversedAmount: string;
  refundedFee: string;
  journalEntryId: string | null;
  from: TransferWallet;
  to: TransferWallet;
}

interface TransferRow {
  currency_code: string;
  from_wallet_id: string;
  from_owner_id: string;
  to_wallet_id: string;
  to_owner_id: string;
}

/** A transfer's wallets as its posting named them (their status decides whether they may move money now, which the ledger says). */
function walletsOf(row: TransferRow): { from: TransferWallet; to: TransferWallet } {
  return {
    from: { id: row.from_wallet_id, ownerId: row.from_owner_id, currencyCode: row.currency_code, status: 'active' },
    to: { id: row.to_wallet_id, ownerId: row.to_owner_id, currencyCode: row.currency_code, status: 'active' },
  };
}

export async function findReversibleTransfer(db: Db | Tx, scope: TransferScope, transferId: string): Promise<ReversibleTransfer | null> {
  const row: (TransferRow & Record<string, unknown>) | undefined = await db('transfers as t')
    .join('wallets as fw', 'fw.id', 't.from_wallet_id')
    .join('wallets as tw', 'tw.id', 't.to_wallet_id')
    .where({ 't.id': transferId, 't.tenant_id': scope.tenantId, 't.environment': scope.environment })
    .first(
      't.id',
      't.tenant_id',
      't.environment',
      't.currency_code',
      't.status',
      't.amount',
      't.fee',
      't.commission',
      't.reversed_amount',
      't.refunded_fee',
      't.journal_entry_id',
      't.from_wallet_id',
      'fw.owner_id as from_owner_id',
      't.to_wallet_id',
      'tw.owner_id as to_owner_id',
    );
  if (!row) return null;
  const { from_wallet_id: _from, from_owner_id: _fromOwner, to_wallet_id: _to, to_owner_id: _toOwner, ...columns } = row;
  return { ...camelCased<Omit<ReversibleTransfer, 'from' | 'to'>>(columns), ...walletsOf(row) };
}

// ---- what reconciliation reads ----

export interface ReconciledReversal extends StoredReversal {
  /** The reversed transfer's entry and wallets, as the reversal's posting names them. */
  transferEntryId: string | null;
  from: TransferWallet;
  to: TransferWallet;
}

function toReconciledReversal(row: TransferRow & { created_at_ms: string; transfer_entry_id: string | null }): ReconciledReversal {
  const {
    created_at_ms: createdAtMs,
    from_wallet_id: _from,
    from_owner_id: _fromOwner,
    to_wallet_id: _to,
    to_owner_id: _toOwner,
    ...columns
  } = row;
  return {
    ...camelCased<Omit<ReconciledReversal, 'createdAt' | 'from' | 'to'>>(columns),
    createdAt: new Date(Number(createdAtMs)),
    ...walletsOf(row),
  };
}

const reconciledReads = recordReads(
  (db: Db) =>
    db('transfer_reversals as r')
      .join('transfers as t', 't.id', 'r.transfer_id')
      .join('wallets as fw', 'fw.id', 't.from_wallet_id')
      .join('wallets as tw', 'tw.id', 't.to_wallet_id')
      .select(
        ...COLUMNS.filter((column) => column !== 'created_at').map((column) => `r.${column}`),
        createdAtMsColumn(db, 'r'),
        't.journal_entry_id as transfer_entry_id',
        't.from_wallet_id',
        'fw.owner_id as from_owner_id',
        't.to_wallet_id',
        'tw.owner_id as to_owner_id',
      ),
  'r',
  toReconciledReversal,
);

export const reversalsByIds = reconciledReads.byIds;
export const reversalsAfter = reconciledReads.after;
