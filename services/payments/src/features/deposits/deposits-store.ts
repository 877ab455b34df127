import type { Deposit, DepositSource, DepositStatus, Environment, JournalKind } from '@wallet/contracts';
import type { ChargedMoneyRecord, MovementNames, RecordStep, RecordTable } from '@wallet/money-commands';
import { formatAmount } from '@wallet/contracts';
import {
  boundedNewestFirst,
  camelCased,
  createdAtMsColumn,
  type Db,
  inboxFilters,
  recordReads,
  type SeqPageFilter,
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

export interface StoredDeposit extends ChargedMoneyRecord {
  seq: string;
  walletId: string;
  source: DepositSource;
  externalRef: string;
  status: DepositStatus;
  rejectionReason: string | null;
  commandId: string | null;
  journalEntryId: string | null;
  providerCode: string | null;
  phoneNumber: string | null;
  bankCode: string | null;
  slipReference: string | null;
  depositedAt: Date | null;
  depositorName: string | null;
  verifiedBy: string | null;
  verifiedAt: Date | null;
  createdAt: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'environment',
  'wallet_id',
  'amount',
  'currency_code',
  'fee',
  'commission',
  'source',
  'external_ref',
  'status',
  'rejection_reason',
  'command_id',
  'journal_entry_id',
  'provider_code',
  'phone_number',
  'bank_code',
  'slip_reference',
  'deposited_at',
  'depositor_name',
  'verified_by',
  'verified_at',
  'created_at',
];

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

export interface NewDeposit {
  id: string;
  tenantId: string;
  environment: Environment;
  walletId: string;
  amount: string;
  currencyCode: string;
  fee?: string;
  commission?: string;
  feeScheduleId?: string | null;
  feeRuleId?: string | null;
  source: DepositSource;
  externalRef: string;
  status: DepositStatus;
  rejectionReason?: string | null;
  commandId?: string | null;
  providerCode?: string | null;
  phoneNumber?: string | null;
  bankCode?: string | null;
  slipReference?: string | null;
  depositedAt?: string | null;
  depositorName?: string | null;
  correlationId?: string | null;
}

function insertRow(deposit: NewDeposit): Record<string, unknown> {
  return {
    id: deposit.id,
    tenant_id: deposit.tenantId,
    environment: deposit.environment,
    wallet_id: deposit.walletId,
    amount: deposit.amount,
    currency_code: deposit.currencyCode,
    fee: deposit.fee ?? '0',
    commission: deposit.commission ?? '0',
    fee_schedule_id: deposit.feeScheduleId ?? null,
    fee_rule_id: deposit.feeRuleId ?? null,
    source: deposit.source,
    external_ref: deposit.externalRef,
    status: deposit.status,
    rejection_reason: deposit.rejectionReason ?? null,
    command_id: deposit.commandId ?? null,
    provider_code: deposit.providerCode ?? null,
    phone_number: deposit.phoneNumber ?? null,
    bank_code: deposit.bankCode ?? null,
    slip_reference: deposit.slipReference ?? null,
    deposited_at: deposit.depositedAt ?? null,
    depositor_name: deposit.depositorName ?? null,
    correlation_id: deposit.correlationId ?? null,
  };
}

/** A credited mobile money deposit as its money command writes it. */
export interface NewMomoDeposit {
  id: string;
  walletId: string;
  amount: string;
  currencyCode: string;
  fee: string;
  commission: string;
  feeScheduleId: string | null;
  feeRuleId: string | null;
  source: 'momo';
  externalRef: string;
  status: 'completed';
  commandId: string;
  providerCode: string;
  phoneNumber: string;
  correlationId: string | null;
  createdAt: Date;
}

/**
 * The webhook's records: a provider's transaction credits at most once per tenant and
 * environment. Concurrent deliveries of one transaction meet at the partial unique index: one
 * inserts, the others wait for it and give way; rejected attempts stay out of the index.
 */
export const MOMO_DEPOSIT_RECORDS: RecordTable<NewMomoDeposit> = {
  name: DEPOSIT.table,
  columns: {
    id: 'text',
    tenantId: 'text',
    environment: 'text',
    walletId: 'text',
    amount: 'numeric',
    currencyCode: 'text',
    fee: 'numeric',
    commission: 'numeric',
    feeScheduleId: 'text',
    feeRuleId: 'text',
    source: 'text',
    externalRef: 'text',
    status: 'text',
    commandId: 'text',
    providerCode: 'text',
    phoneNumber: 'text',
    correlationId: 'text',
    createdAt: 'timestamptz',
  },
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

export async function insertDeposit(db: Db | Tx, deposit: NewDeposit): Promise<StoredDeposit> {
  const rows: object[] = await db(DEPOSIT.table).insert(insertRow(deposit)).returning(COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`deposit ${deposit.id} was not inserted`);
  return toStored(row);
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

export async function updateDeposit(tx: Tx, id: string, changes: Record<string, unknown>): Promise<StoredDeposit> {
  const rows: object[] = await tx(DEPOSIT.table)
    .where({ id })
    .update({ ...changes, updated_at: tx.fn.now() })
    .returning(COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`deposit ${id} vanished while it changed`);
  return toStored(row);
}

export interface DepositFilter extends SeqPageFilter {
  walletId?: string | undefined;
  status?: DepositStatus | undefined;
  source?: DepositSource | undefined;
}

/**
 * Newest first, one more row than asked when a next page exists. Pending bank slips (the slips
 * awaiting their statement) come from their own index, a wallet tested on them; otherwise status
 * and source are tested on a bounded number of deposits (boundedNewestFirst).
 */
export async function listDeposits(db: Db, scope: DepositScope, filter: DepositFilter): Promise<SeqRows<StoredDeposit>> {
  const filters = inboxFilters(
    { source: 'bank_slip', status: 'pending' },
    {
      indexed: { wallet_id: filter.walletId || undefined },
      tested: { status: filter.status || undefined, source: filter.source || undefined },
    },
  );
  const { rows, stoppedAt } = await boundedNewestFirst<{ seq: string }>(db, DEPOSIT.table, scope, filter, COLUMNS, filters);
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
