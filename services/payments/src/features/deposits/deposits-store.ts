import type { Deposit, DepositSource, DepositStatus, Environment, JournalKind } from '@wallet/contracts';
import {
  type ChargedMoneyRecord,
  columnName,
  type DraftOf,
  filled,
  type MovementNames,
  recordColumns,
  type RecordStep,
  type RecordTable,
  SCOPED_RECORD_COLUMNS,
  type StoredOf,
  withFilled,
  written,
  writtenOnly,
} from '@wallet/money-commands';
import { formatAmount } from '@wallet/contracts';
import {
  boundedSortedList,
  camelCased,
  createdAtMsColumn,
  type Db,
  inboxFilters,
  recordReads,
  type CreatedRange,
  type SortedPageFilter,
  type SeqRows,
  type Tx,
} from '@wallet/kit';

export interface DepositScope {
  tenantId: string;
  environment: Environment;
}

/** A deposit's names (docs/money-movements.md): one record type and table, and the journal kind of each way a deposit comes in. */
export const DEPOSIT: MovementNames<Readonly<Record<DepositSource, JournalKind>>> = {
  type: 'deposit',
  table: 'deposits',
  kind: { momo: 'momo_deposit', bank_slip: 'bank_deposit' },
};

/**
 * A deposit's columns, spelled once for both ways a deposit comes in: every column either way
 * writes is written here, and each way's columns leave the other's to the database or a later
 * step (withFilled). The stored deposit is the same either way.
 */
const DEPOSIT_COLUMNS = recordColumns({
  ...SCOPED_RECORD_COLUMNS,
  walletId: written<string>('text'),
  amount: written<string>('numeric'),
  currencyCode: written<string>('text'),
  fee: written<string>('numeric'),
  commission: written<string>('numeric'),
  feeScheduleId: writtenOnly<string | null>('text'),
  feeRuleId: writtenOnly<string | null>('text'),
  source: written<DepositSource>('text'),
  externalRef: written<string>('text'),
  status: written<DepositStatus>('text'),
  rejectionReason: written<string | null>('text'),
  commandId: written<string | null>('text'),
  journalEntryId: filled<string | null>('text'),
  providerCode: written<string | null>('text'),
  phoneNumber: written<string | null>('text'),
  bankCode: written<string | null>('text'),
  slipReference: written<string | null>('text'),
  depositedAt: written<Date | null>('timestamptz'),
  depositorName: written<string | null>('text'),
  verifiedBy: filled<string | null>('text'),
  verifiedAt: filled<Date | null>('timestamptz'),
  correlationId: writtenOnly<string | null>('text'),
  createdAt: written<Date>('timestamptz'),
});

export type StoredDeposit = StoredOf<typeof DEPOSIT_COLUMNS>;

const COLUMNS = DEPOSIT_COLUMNS.names;

/** What the webhook writes of a delivery, credited or refused: the provider's transaction, and its charge and command when credited. */
const MOMO_COLUMNS = withFilled(DEPOSIT_COLUMNS, ['bankCode', 'slipReference', 'depositedAt', 'depositorName']);

/**
 * What a submitted slip writes: its bank's reference. Its verification fills the rest
 * (SlipVerified); its creation time is the database's.
 */
const SLIP_COLUMNS = withFilled(DEPOSIT_COLUMNS, [
  'fee',
  'commission',
  'feeScheduleId',
  'feeRuleId',
  'rejectionReason',
  'commandId',
  'providerCode',
  'phoneNumber',
  'createdAt',
]);

/** A webhook's deposit as it is written: credited with its money command, or refused and kept for audit. */
export type NewMomoDeposit = DraftOf<typeof MOMO_COLUMNS> & { source: 'momo'; providerCode: string };

/** A bank slip as it is submitted, pending. */
export type NewSlip = DraftOf<typeof SLIP_COLUMNS> & { source: 'bank_slip'; status: 'pending'; bankCode: string; slipReference: string };

/** Every column a deposit's creation or a slip's verification may write. */
type DepositFields = DraftOf<typeof DEPOSIT_COLUMNS>;

/** What a slip's verification fills: who verified it (now), and its charge and command when it credits, or why not when it rejects. */
export type SlipVerified = { verifiedBy: string } & (
  | ({ status: 'completed' } & Pick<DepositFields, 'fee' | 'commission' | 'feeScheduleId' | 'feeRuleId' | 'commandId'>)
  | { status: 'rejected'; rejectionReason: string }
);

function toStored(row: object): StoredDeposit {
  return camelCased(row);
}

export function toDeposit(deposit: StoredDeposit): Deposit {
  return {
    id: deposit.id,
    tenantId: deposit.tenantId,
    environment: deposit.environment,
    walletId: deposit.walletId,
    amount: formatAmount(deposit.amount, deposit.currencyCode),
    currencyCode: deposit.currencyCode,
    fee: formatAmount(deposit.fee, deposit.currencyCode),
    source: deposit.source,
    externalRef: deposit.externalRef,
    status: deposit.status,
    rejectionReason: deposit.rejectionReason,
    journalEntryId: deposit.journalEntryId,
    awaitingLedger: deposit.status === 'completed' && deposit.journalEntryId === null,
    providerCode: deposit.providerCode,
    phoneNumber: deposit.phoneNumber,
    bankCode: deposit.bankCode,
    slipReference: deposit.slipReference,
    depositedAt: deposit.depositedAt?.toISOString() ?? null,
    depositorName: deposit.depositorName,
    verifiedBy: deposit.verifiedBy,
    verifiedAt: deposit.verifiedAt?.toISOString() ?? null,
    createdAt: deposit.createdAt.toISOString(),
  };
}

/**
 * The webhook's records: a provider's transaction credits at most once per tenant and
 * environment. Concurrent deliveries of one transaction meet at the partial unique index: one
 * inserts, the others wait for it and give way; rejected attempts stay out of the index.
 */
export const MOMO_DEPOSIT_RECORDS: RecordTable<NewMomoDeposit> = {
  name: DEPOSIT.table,
  columns: MOMO_COLUMNS.written,
  naturalKey: "(tenant_id, environment, provider_code, external_ref) WHERE source = 'momo' AND status <> 'rejected'",
};

/**
 * A credit's one step: the deposit is completed when its command is written (a credit cannot be
 * refused for funds, and a frozen wallet still receives); the ledger's entry makes it final.
 */
export const DEPOSIT_POSTING: RecordStep = {
  table: DEPOSIT.table,
  waiting: 'r.command_id IS NOT NULL AND r.journal_entry_id IS NULL',
  recorded: 'journal_entry_id = u.journal_entry_id, updated_at = now()',
};

/** A deposit written outside a money command (a refused delivery, a submitted slip): the columns its way writes. */
async function insertDeposit(
  db: Db | Tx,
  columns: { written: Record<string, unknown> },
  scope: DepositScope,
  draft: object,
): Promise<StoredDeposit> {
  const values: Record<string, unknown> = { ...draft, tenantId: scope.tenantId, environment: scope.environment };
  const row = Object.fromEntries(Object.keys(columns.written).map((field) => [columnName(field), values[field] ?? null]));
  const rows: object[] = await db(DEPOSIT.table).insert(row).returning(COLUMNS);
  const inserted = rows[0];
  if (!inserted) throw new Error(`deposit ${String(values.id)} was not inserted`);
  return toStored(inserted);
}

/** A refused delivery, kept for audit. */
export function insertRefusedMomo(db: Db | Tx, scope: DepositScope, draft: NewMomoDeposit): Promise<StoredDeposit> {
  return insertDeposit(db, MOMO_COLUMNS, scope, draft);
}

export function insertSlip(db: Db | Tx, scope: DepositScope, draft: NewSlip): Promise<StoredDeposit> {
  return insertDeposit(db, SLIP_COLUMNS, scope, draft);
}

/**
 * The credited (non-rejected) deposit of a provider's transaction in one environment, if any:
 * test and live are separate worlds, so a transaction id seen in one says nothing of the other.
 */
export async function findMomoDeposit(
  db: Db | Tx,
  scope: DepositScope,
  providerCode: string,
  transactionId: string,
): Promise<StoredDeposit | null> {
  const row: object | undefined = await db(DEPOSIT.table)
    .where({
      tenant_id: scope.tenantId,
      environment: scope.environment,
      provider_code: providerCode,
      external_ref: transactionId,
      source: 'momo',
    })
    .whereNot('status', 'rejected')
    .first(COLUMNS);
  return row ? toStored(row) : null;
}

export async function findDeposit(
  db: Db | Tx,
  scope: DepositScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredDeposit | null> {
  const query = db(DEPOSIT.table).where({ tenant_id: scope.tenantId, environment: scope.environment, id });
  if (options.forUpdate) query.forUpdate();
  const row: object | undefined = await query.first(COLUMNS);
  return row ? toStored(row) : null;
}

/** Records what a slip's verification decided, on the slip the caller's transaction holds locked. */
export async function recordSlipVerification(tx: Tx, id: string, verification: SlipVerified): Promise<StoredDeposit> {
  const changes = Object.fromEntries(Object.entries(verification).map(([field, value]) => [columnName(field), value as unknown]));
  const rows: object[] = await tx(DEPOSIT.table)
    .where({ id })
    .update({ ...changes, verified_at: tx.fn.now(), updated_at: tx.fn.now() })
    .returning(COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`deposit ${id} vanished while it was verified`);
  return toStored(row);
}

/** A rejected slip pending again (reopened), its verdict cleared, on the slip the caller's transaction holds locked. */
export async function reopenSlip(tx: Tx, id: string): Promise<StoredDeposit> {
  const rows: object[] = await tx(DEPOSIT.table)
    .where({ id })
    .update({ status: 'pending', rejection_reason: null, verified_by: null, verified_at: null, updated_at: tx.fn.now() })
    .returning(COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`deposit ${id} vanished while it was reopened`);
  return toStored(row);
}

export interface DepositFilter extends SortedPageFilter, CreatedRange {
  walletId?: string | undefined;
  status?: DepositStatus | undefined;
  source?: DepositSource | undefined;
  externalRef?: string | undefined;
  phoneNumber?: string | undefined;
}

/**
 * Newest first, one more row than asked when a next page exists. Pending bank slips (the slips
 * awaiting their statement) come from their own index, a wallet tested on them; otherwise status
 * and source are tested on a bounded number of deposits (boundedSortedList). A reference or a
 * phone number is found through its own index (deposits_external_ref_seq, deposits_phone_number_seq).
 */
export async function listDeposits(db: Db, scope: DepositScope, filter: DepositFilter): Promise<SeqRows<StoredDeposit>> {
  const filters = inboxFilters(
    { source: 'bank_slip', status: 'pending' },
    {
      indexed: { wallet_id: filter.walletId || undefined, external_ref: filter.externalRef, phone_number: filter.phoneNumber },
      tested: { status: filter.status || undefined, source: filter.source || undefined },
    },
  );
  const { rows, stoppedAt } = await boundedSortedList<{ seq: string }>(db, DEPOSIT.table, scope, filter, COLUMNS, filters);
  return { rows: rows.map(toStored), stoppedAt };
}

/** What a deposit needs of its wallet: where it lives, its account and its currency. */
export interface DepositWallet {
  id: string;
  tenantId: string;
  environment: Environment;
  ownerId: string;
  currencyCode: string;
}

interface WalletRow {
  id: string;
  tenant_id: string;
  environment: Environment;
  owner_id: string;
  currency_code: string;
}

function toWallet(row: WalletRow): DepositWallet {
  return { id: row.id, tenantId: row.tenant_id, environment: row.environment, ownerId: row.owner_id, currencyCode: row.currency_code };
}

/** The webhook names only the wallet: its tenant and environment are the wallet's. */
export async function findWalletAnywhere(db: Db, walletId: string): Promise<DepositWallet | null> {
  const row: WalletRow | undefined = await db('wallets')
    .where({ id: walletId })
    .first(['id', 'tenant_id', 'environment', 'owner_id', 'currency_code']);
  return row ? toWallet(row) : null;
}

export async function findScopedWallet(db: Db | Tx, scope: DepositScope, walletId: string): Promise<DepositWallet | null> {
  const row: WalletRow | undefined = await db('wallets')
    .where({ id: walletId, tenant_id: scope.tenantId, environment: scope.environment })
    .first(['id', 'tenant_id', 'environment', 'owner_id', 'currency_code']);
  return row ? toWallet(row) : null;
}

// ---- what reconciliation reads ----
// The by-id reads bind their ids as one array: a list of a thousand parameters cost more to plan than to run.

export interface ReconciledDeposit extends ChargedMoneyRecord {
  seq: string;
  source: DepositSource;
  status: DepositStatus;
  providerCode: string | null;
  bankCode: string | null;
  journalEntryId: string | null;
  createdAt: Date;
  wallet: { id: string; tenantId: string; environment: Environment; ownerId: string; currencyCode: string };
}

/** The columns of a reconciled deposit beside its own: its creation time in ms and its wallet's. */
interface ReconciledDepositRow {
  created_at_ms: string;
  wallet_id: string;
  wallet_tenant_id: string;
  wallet_environment: Environment;
  wallet_owner_id: string;
  wallet_currency_code: string;
}

function toReconciledDeposit(row: ReconciledDepositRow): ReconciledDeposit {
  const {
    created_at_ms: createdAtMs,
    wallet_id: id,
    wallet_tenant_id: tenantId,
    wallet_environment: environment,
    wallet_owner_id: ownerId,
    wallet_currency_code: currencyCode,
    ...columns
  } = row;
  return {
    ...camelCased<Omit<ReconciledDeposit, 'createdAt' | 'wallet'>>(columns),
    createdAt: new Date(Number(createdAtMs)),
    wallet: { id, tenantId, environment, ownerId, currencyCode },
  };
}

function depositsWithWallets(db: Db) {
  return db(`${DEPOSIT.table} as d`)
    .join('wallets as w', 'w.id', 'd.wallet_id')
    .select(
      'd.seq',
      'd.id',
      'd.tenant_id',
      'd.environment',
      'd.source',
      'd.status',
      'd.currency_code',
      'd.amount',
      'd.fee',
      'd.commission',
      'd.provider_code',
      'd.bank_code',
      'd.journal_entry_id',
      createdAtMsColumn(db, 'd'),
      'd.wallet_id',
      'w.tenant_id as wallet_tenant_id',
      'w.environment as wallet_environment',
      'w.owner_id as wallet_owner_id',
      'w.currency_code as wallet_currency_code',
    );
}

const reconciledReads = recordReads(depositsWithWallets, 'd', toReconciledDeposit);

/** Deposits by id, of any status; within the scope when one is given. */
export const depositsByIds = reconciledReads.byIds;

/** A scope's deposits after a seq, in seq order, at most `limit`. */
export const depositsAfter = reconciledReads.after;

export interface StalePendingSlip {
  depositId: string;
  tenantId: string;
  environment: Environment;
  walletId: string;
  bankCode: string | null;
  slipReference: string | null;
  currencyCode: string;
  amount: string;
  createdAt: Date;
}

/** Bank slips still pending that were submitted before `submittedBefore`, oldest first, at most `limit`. */
export async function stalePendingSlips(
  db: Db,
  scope: DepositScope | null,
  filter: { submittedBefore: Date; limit: number },
): Promise<StalePendingSlip[]> {
  const query = db(DEPOSIT.table)
    .where({ source: 'bank_slip', status: 'pending' })
    .where('created_at', '<', filter.submittedBefore)
    .orderBy('created_at')
    .limit(filter.limit)
    .select(
      'id as deposit_id',
      'tenant_id',
      'environment',
      'wallet_id',
      'bank_code',
      'slip_reference',
      'currency_code',
      'amount',
      'created_at',
    );
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: object[] = await query;
  return rows.map((row) => camelCased(row));
}
