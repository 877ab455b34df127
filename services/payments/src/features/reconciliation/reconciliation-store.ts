import type { DepositSource, DepositStatus, Environment, PayoutDestination, PayoutStatus, TransferStatus } from '@wallet/contracts';
import { type Db, sqlArray } from '@wallet/kit';
import type { TransferWallet } from '../transfers/transfers-store';

/** One tenant's environment; null in a store call means every tenant. */
export interface ReconciliationScope {
  tenantId: string;
  environment: Environment;
}

// The by-id reads bind their ids as one array: a list of a thousand parameters cost more to plan than to run.

/**
 * A record's creation as epoch milliseconds: a full run reads millions of rows, and parsing a
 * timestamp's text into a Date took more of its time than any other column.
 */
function createdAtMs(db: Db, alias: string) {
  return db.raw(`floor(extract(epoch FROM ${alias}.created_at) * 1000)::bigint::text AS created_at_ms`);
}

// ---- transfers ----

export interface ReconciledTransfer {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  currencyCode: string;
  amount: string;
  fee: string;
  commission: string;
  status: TransferStatus;
  journalEntryId: string | null;
  createdAt: Date;
  /** As a posting names them (a wallet's status decides whether it may send, not what a posting meant). */
  from: TransferWallet;
  to: TransferWallet;
}

interface TransferRow {
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

function toReconciledTransfer(row: TransferRow): ReconciledTransfer {
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
      't.seq', 't.id', 't.tenant_id', 't.environment', 't.currency_code', 't.amount', 't.fee', 't.commission', 't.status', 't.journal_entry_id', createdAtMs(db, 't'),
      't.from_wallet_id', 'fw.owner_id as from_owner_id',
      't.to_wallet_id', 'tw.owner_id as to_owner_id',
    );
}

/** Transfers by id, of any status; within the scope when one is given. */
export async function transfersByIds(db: Db, scope: ReconciliationScope | null, ids: readonly string[]): Promise<ReconciledTransfer[]> {
  if (ids.length === 0) return [];
  const query = transfersWithWallets(db).whereRaw('t.id = ANY(?::text[])', [sqlArray(ids)]);
  if (scope) query.where({ 't.tenant_id': scope.tenantId, 't.environment': scope.environment });
  const rows: TransferRow[] = await query;
  return rows.map(toReconciledTransfer);
}

/** A scope's transfers after a seq, in seq order, at most `limit`. */
export async function transfersAfter(db: Db, scope: ReconciliationScope, afterSeq: string, limit: number): Promise<ReconciledTransfer[]> {
  const rows: TransferRow[] = await transfersWithWallets(db).where({ 't.tenant_id': scope.tenantId, 't.environment': scope.environment }).where('t.seq', '>', afterSeq).orderBy('t.seq').limit(limit);
  return rows.map(toReconciledTransfer);
}

// ---- deposits ----

export interface ReconciledDeposit {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  source: DepositSource;
  status: DepositStatus;
  currencyCode: string;
  amount: string;
  fee: string;
  commission: string;
  providerCode: string | null;
  bankCode: string | null;
  journalEntryId: string | null;
  createdAt: Date;
  wallet: { id: string; tenantId: string; environment: Environment; ownerId: string; currencyCode: string };
}

interface DepositRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  source: DepositSource;
  status: DepositStatus;
  currency_code: string;
  amount: string;
  fee: string;
  commission: string;
  provider_code: string | null;
  bank_code: string | null;
  journal_entry_id: string | null;
  created_at_ms: string;
  wallet_id: string;
  wallet_tenant_id: string;
  wallet_environment: Environment;
  wallet_owner_id: string;
  wallet_currency_code: string;
}

function toReconciledDeposit(row: DepositRow): ReconciledDeposit {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    source: row.source,
    status: row.status,
    currencyCode: row.currency_code,
    amount: row.amount,
    fee: row.fee,
    commission: row.commission,
    providerCode: row.provider_code,
    bankCode: row.bank_code,
    journalEntryId: row.journal_entry_id,
    createdAt: new Date(Number(row.created_at_ms)),
    wallet: { id: row.wallet_id, tenantId: row.wallet_tenant_id, environment: row.wallet_environment, ownerId: row.wallet_owner_id, currencyCode: row.wallet_currency_code },
  };
}

function depositsWithWallets(db: Db) {
  return db('deposits as d')
    .join('wallets as w', 'w.id', 'd.wallet_id')
    .select(
      'd.seq', 'd.id', 'd.tenant_id', 'd.environment', 'd.source', 'd.status', 'd.currency_code', 'd.amount', 'd.fee', 'd.commission',
      'd.provider_code', 'd.bank_code', 'd.journal_entry_id', createdAtMs(db, 'd'), 'd.wallet_id',
      'w.tenant_id as wallet_tenant_id', 'w.environment as wallet_environment', 'w.owner_id as wallet_owner_id', 'w.currency_code as wallet_currency_code',
    );
}

/** Deposits by id, of any status; within the scope when one is given. */
export async function depositsByIds(db: Db, scope: ReconciliationScope | null, ids: readonly string[]): Promise<ReconciledDeposit[]> {
  if (ids.length === 0) return [];
  const query = depositsWithWallets(db).whereRaw('d.id = ANY(?::text[])', [sqlArray(ids)]);
  if (scope) query.where({ 'd.tenant_id': scope.tenantId, 'd.environment': scope.environment });
  const rows: DepositRow[] = await query;
  return rows.map(toReconciledDeposit);
}

/** A scope's deposits after a seq, in seq order, at most `limit`. */
export async function depositsAfter(db: Db, scope: ReconciliationScope, afterSeq: string, limit: number): Promise<ReconciledDeposit[]> {
  const rows: DepositRow[] = await depositsWithWallets(db).where({ 'd.tenant_id': scope.tenantId, 'd.environment': scope.environment }).where('d.seq', '>', afterSeq).orderBy('d.seq').limit(limit);
  return rows.map(toReconciledDeposit);
}

// ---- bank evidence ----

export interface UnmatchedStatementLine {
  statementLineId: string;
  importId: string;
  tenantId: string;
  environment: Environment;
  bankCode: string;
  currencyCode: string;
  date: string;
  reference: string;
  amount: string;
}

/** Statement lines no deposit used, oldest first, at most `limit`. */
export async function unmatchedStatementLines(db: Db, scope: ReconciliationScope | null, limit: number): Promise<UnmatchedStatementLine[]> {
  const query = db('bank_statement_lines')
    .whereNull('deposit_id')
    .orderBy('id')
    .limit(limit)
    .select('id', 'import_id', 'tenant_id', 'environment', 'bank_code', 'currency_code', db.raw("to_char(line_date, 'YYYY-MM-DD') as line_date"), 'reference', 'amount');
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: Array<{ id: string; import_id: string; tenant_id: string; environment: Environment; bank_code: string; currency_code: string; line_date: string; reference: string; amount: string }> = await query;
  return rows.map((row) => ({
    statementLineId: String(row.id),
    importId: row.import_id,
    tenantId: row.tenant_id,
    environment: row.environment,
    bankCode: row.bank_code,
    currencyCode: row.currency_code,
    date: row.line_date,
    reference: row.reference,
    amount: row.amount,
  }));
}

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
export async function stalePendingSlips(db: Db, scope: ReconciliationScope | null, filter: { submittedBefore: Date; limit: number }): Promise<StalePendingSlip[]> {
  const query = db('deposits')
    .where({ source: 'bank_slip', status: 'pending' })
    .where('created_at', '<', filter.submittedBefore)
    .orderBy('created_at')
    .limit(filter.limit)
    .select('id', 'tenant_id', 'environment', 'wallet_id', 'bank_code', 'slip_reference', 'currency_code', 'amount', 'created_at');
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: Array<{ id: string; tenant_id: string; environment: Environment; wallet_id: string; bank_code: string | null; slip_reference: string | null; currency_code: string; amount: string; created_at: Date }> = await query;
  return rows.map((row) => ({
    depositId: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    walletId: row.wallet_id,
    bankCode: row.bank_code,
    slipReference: row.slip_reference,
    currencyCode: row.currency_code,
    amount: row.amount,
    createdAt: row.created_at,
  }));
}

// ---- payout cases ----

/** A payout case with what its steps posted: the hold, then the decision, then the rail's outcome. */
export interface ReconciledPayoutCase {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  status: PayoutStatus;
  walletId: string;
  walletOwnerId: string;
  currencyCode: string;
  amount: string;
  fee: string;
  commission: string;
  destination: PayoutDestination;
  holdEntryId: string | null;
  decisionEntryId: string | null;
  outcomeEntryId: string | null;
  createdAt: Date;
}

interface PayoutCaseRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  status: PayoutStatus;
  wallet_id: string;
  owner_id: string;
  currency_code: string;
  amount: string;
  fee: string;
  commission: string;
  destination: PayoutDestination;
  hold_entry_id: string | null;
  decision_entry_id: string | null;
  outcome_entry_id: string | null;
  created_at: Date;
}

function payoutCasesWithWallets(db: Db) {
  return db('payout_cases as p')
    .join('wallets as w', 'w.id', 'p.wallet_id')
    .select(
      'p.seq',
      'p.id',
      'p.tenant_id',
      'p.environment',
      'p.status',
      'p.wallet_id',
      'w.owner_id',
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

function toReconciledPayoutCase(row: PayoutCaseRow): ReconciledPayoutCase {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    status: row.status,
    walletId: row.wallet_id,
    walletOwnerId: row.owner_id,
    currencyCode: row.currency_code,
    amount: row.amount,
    fee: row.fee,
    commission: row.commission,
    destination: row.destination,
    holdEntryId: row.hold_entry_id,
    decisionEntryId: row.decision_entry_id,
    outcomeEntryId: row.outcome_entry_id,
    createdAt: row.created_at,
  };
}

/** Payout cases by id, of any status; within the scope when one is given. */
export async function payoutCasesByIds(db: Db, scope: ReconciliationScope | null, ids: readonly string[]): Promise<ReconciledPayoutCase[]> {
  if (ids.length === 0) return [];
  const query = payoutCasesWithWallets(db).whereRaw('p.id = ANY(?::text[])', [sqlArray(ids)]);
  if (scope) query.where({ 'p.tenant_id': scope.tenantId, 'p.environment': scope.environment });
  const rows: PayoutCaseRow[] = await query;
  return rows.map(toReconciledPayoutCase);
}
