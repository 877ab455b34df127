import { type Environment, type TransferStatus, walletStatusSchema } from '@wallet/contracts';
import {
  boundedSortedList,
  camelCased,
  createdAtMsColumn,
  type Db,
  prepared,
  recordReads,
  scopedRecords,
  type CreatedRange,
  type SortedPageFilter,
  type SeqRows,
  TENANT_CONFIG_TABLE,
  type Tx,
} from '@wallet/kit';
import {
  type ChargedMoneyRecord,
  type MovementNames,
  type DraftOf,
  FEE_COLUMNS,
  filled,
  recordColumns,
  type RecordTable,
  SCOPED_RECORD_COLUMNS,
  settlementStep,
  type StoredOf,
  type WalletAccount,
  written,
} from '@wallet/money-commands';
import type { Knex } from 'knex';
import { z } from 'zod';
import { type DefaultTerms, defaultTermsExpression, parseDefaultTerms } from '../fees/fee-terms';

/** Every read and write of transfers is bounded by one tenant and one environment. */
export interface TransferScope {
  tenantId: string;
  environment: Environment;
}

/** A transfer's names (docs/money-movements.md). */
export const TRANSFER: MovementNames = { type: 'transfer', table: 'transfers', kind: 'transfer' };

/** A transfer's columns: the stored transfer, what a read selects and what the creating statement writes. */
const TRANSFER_COLUMNS = recordColumns({
  ...SCOPED_RECORD_COLUMNS,
  fromWalletId: written<string>('text'),
  toWalletId: written<string>('text'),
  currencyCode: written<string>('text'),
  amount: written<string>('numeric'),
  ...FEE_COLUMNS,
  description: written<string | null>('text'),
  status: filled<TransferStatus>('text'),
  journalEntryId: filled<string | null>('text'),
  failureCode: filled<string | null>('text'),
  createdAt: written<Date>('timestamptz'),
});

export type StoredTransfer = StoredOf<typeof TRANSFER_COLUMNS>;

const COLUMNS = TRANSFER_COLUMNS.names;

function toTransfer(row: object): StoredTransfer {
  return camelCased(row);
}

/** What a transfer needs of its two wallets. */
export type TransferWallet = WalletAccount;

/** Both wallets in one statement; a wallet of another tenant or environment is simply absent. */
const transferWalletsJsonSchema = z.array(
  z.object({ id: z.string(), ownerId: z.string(), currencyCode: z.string(), status: walletStatusSchema }),
);

/** What a transfer is decided on, read in one round trip. */
export interface TransferContext {
  wallets: Map<string, TransferWallet>;
  terms: DefaultTerms;
  /** The tenant's ceiling per transaction, from payments' copy of its configuration; null when payments has not heard of the tenant. */
  maxTransactionAmount: string | null;
}

/**
 * The wallets, the fee terms transfers are charged by and the tenant's transaction ceiling, in
 * one round trip: the wallets by id in the scope (those of several transfers of the scope at
 * once), the tenant's default schedule with its transfer rules for the currency, and its
 * maxTransactionAmount.
 */
export async function findTransferContext(
  tx: Db | Tx,
  scope: TransferScope,
  ids: readonly string[],
  currencyCode: string,
): Promise<TransferContext> {
  const terms = defaultTermsExpression(scope.tenantId, { transactionType: 'transfer', currencyCode });
  const result = await prepared<{ rows: Array<{ wallets: unknown; terms: unknown; max_transaction_amount: string | null }> }>(
    tx,
    `SELECT (SELECT coalesce(json_agg(json_build_object('id', id, 'ownerId', owner_id, 'currencyCode', currency_code, 'status', status)), '[]'::json)
             FROM wallets WHERE id = ANY(CAST(? AS text[])) AND tenant_id = ? AND environment = ?) AS wallets,
            ${terms.sql} AS terms,
            (SELECT max_transaction_amount::text FROM ${TENANT_CONFIG_TABLE} WHERE id = ?) AS max_transaction_amount`,
    [[...ids], scope.tenantId, scope.environment, ...terms.bindings, scope.tenantId] as unknown as Knex.RawBinding[],
  );
  const row = result.rows[0];
  if (!row) throw new Error('the transfer context read returned no row');
  const wallets = transferWalletsJsonSchema.parse(row.wallets);
  return {
    wallets: new Map(wallets.map((wallet) => [wallet.id, wallet])),
    terms: parseDefaultTerms(row.terms),
    maxTransactionAmount: row.max_transaction_amount,
  };
}

export type NewTransfer = DraftOf<typeof TRANSFER_COLUMNS>;

/** A transfer as its creating statement writes it (with its posting command and its key's first answer). */
export const TRANSFER_RECORDS: RecordTable<NewTransfer> = { name: TRANSFER.table, columns: TRANSFER_COLUMNS.written };

/** A transfer's posting: the transfer is pending until the ledger answers it, and leaves pending once. */
export const TRANSFER_POSTING = settlementStep(TRANSFER.table);

const transferRecords = scopedRecords(TRANSFER.table, COLUMNS, toTransfer);
export const findTransfer = transferRecords.find;
export const findTransfers = transferRecords.findMany;

export interface TransferFilter extends SortedPageFilter, CreatedRange {
  walletId?: string | undefined;
  status?: TransferStatus | undefined;
}

/** Newest first, one more row than asked when a next page exists; the status is tested on a bounded number of transfers (boundedSortedList). */
export async function listTransfers(db: Db, scope: TransferScope, filter: TransferFilter): Promise<SeqRows<StoredTransfer>> {
  // Each side's index holds the wallet id's hash (20261230120000_transfers_storage); the id itself is compared too.
  const ofWallet = (walletId: string) => (candidates: Knex.QueryBuilder) =>
    candidates.whereRaw(
      '((hashtextextended(from_wallet_id, 0) = hashtextextended(?, 0) AND from_wallet_id = ?) OR (hashtextextended(to_wallet_id, 0) = hashtextextended(?, 0) AND to_wallet_id = ?))',
      [walletId, walletId, walletId, walletId],
    );
  const { rows, stoppedAt } = await boundedSortedList<{ seq: string }>(db, TRANSFER.table, scope, filter, COLUMNS, {
    tested: { status: filter.status },
    ...(filter.walletId !== undefined ? { narrow: ofWallet(filter.walletId) } : {}),
  });
  return { rows: rows.map(toTransfer), stoppedAt };
}

// ---- what reconciliation reads ----
// The by-id reads bind their ids as one array: a list of a thousand parameters cost more to plan than to run.

export interface ReconciledTransfer extends ChargedMoneyRecord {
  seq: string;
  status: TransferStatus;
  journalEntryId: string | null;
  createdAt: Date;
  /** As a posting names them (a wallet's status decides whether it may send, not what a posting meant). */
  from: TransferWallet;
  to: TransferWallet;
}

/** A reconciled transfer's columns (transfersWithWallets): its own, its creation time in ms and its wallets' owners. */
interface ReconciledTransferRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  currency_code: string;
  amount: string;
  fee: string;
  commission: string;
  status: TransferStatus;
  journal_entry_id: string | null;
  created_at_ms: string;
  from_wallet_id: string;
  from_owner_id: string;
  to_wallet_id: string;
  to_owner_id: string;
}

/** Field by field, not by a generic conversion: a full run reads every transfer there is. */
function toReconciledTransfer(row: ReconciledTransferRow): ReconciledTransfer {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    currencyCode: row.currency_code,
    amount: row.amount,
    fee: row.fee,
    commission: row.commission,
    status: row.status,
    journalEntryId: row.journal_entry_id,
    createdAt: new Date(Number(row.created_at_ms)),
    // A transfer's wallets hold its currency (checked when it was made); the ledger's accounts say theirs.
    from: { id: row.from_wallet_id, ownerId: row.from_owner_id, currencyCode: row.currency_code, status: 'active' },
    to: { id: row.to_wallet_id, ownerId: row.to_owner_id, currencyCode: row.currency_code, status: 'active' },
  };
}

function transfersWithWallets(db: Db) {
  return db('transfers as t')
    .join('wallets as fw', 'fw.id', 't.from_wallet_id')
    .join('wallets as tw', 'tw.id', 't.to_wallet_id')
    .select(
      't.seq',
      't.id',
      't.tenant_id',
      't.environment',
      't.currency_code',
      't.amount',
      't.fee',
      't.commission',
      't.status',
      't.journal_entry_id',
      createdAtMsColumn(db, 't'),
      't.from_wallet_id',
      'fw.owner_id as from_owner_id',
      't.to_wallet_id',
      'tw.owner_id as to_owner_id',
    );
}

const reconciledReads = recordReads(transfersWithWallets, 't', toReconciledTransfer);

/** Transfers by id, of any status; within the scope when one is given. */
export const transfersByIds = reconciledReads.byIds;

/** A scope's transfers after a seq, in seq order, at most `limit`. */
export const transfersAfter = reconciledReads.after;
