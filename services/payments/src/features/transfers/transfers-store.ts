import { type Environment, type TransferStatus, type WalletStatus, walletStatusSchema } from '@wallet/contracts';
import { createdAtMsColumn, type Db, type FinalAnswer, finalAnswersStatement, firstAnswersStatement, type OutboxMessage, outboxInsertForRowsStatement, prepared, sqlArray, TENANT_CONFIG_TABLE, type Tx } from '@wallet/kit';
import type { Knex } from 'knex';
import { z } from 'zod';
import { type DefaultTerms, defaultTermsExpression, parseDefaultTerms } from '../fees/fee-terms';

/** Every read and write of transfers is bounded by one tenant and one environment. */
export interface TransferScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredTransfer {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  fromWalletId: string;
  toWalletId: string;
  currencyCode: string;
  amount: string;
  fee: string;
  commission: string;
  feeScheduleId: string | null;
  feeRuleId: string | null;
  platformCommissionBps: number;
  description: string | null;
  status: TransferStatus;
  journalEntryId: string | null;
  failureCode: string | null;
  createdAt: Date;
}

interface TransferRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  from_wallet_id: string;
  to_wallet_id: string;
  currency_code: string;
  amount: string;
  fee: string;
  commission: string;
  fee_schedule_id: string | null;
  fee_rule_id: string | null;
  platform_commission_bps: number;
  description: string | null;
  status: TransferStatus;
  journal_entry_id: string | null;
  failure_code: string | null;
  created_at: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'environment',
  'from_wallet_id',
  'to_wallet_id',
  'currency_code',
  'amount',
  'fee',
  'commission',
  'fee_schedule_id',
  'fee_rule_id',
  'platform_commission_bps',
  'description',
  'status',
  'journal_entry_id',
  'failure_code',
  'created_at',
];
const COLUMN_LIST = COLUMNS.join(', ');

function toTransfer(row: TransferRow): StoredTransfer {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    fromWalletId: row.from_wallet_id,
    toWalletId: row.to_wallet_id,
    currencyCode: row.currency_code,
    amount: row.amount,
    fee: row.fee,
    commission: row.commission,
    feeScheduleId: row.fee_schedule_id,
    feeRuleId: row.fee_rule_id,
    platformCommissionBps: row.platform_commission_bps,
    description: row.description,
    status: row.status,
    journalEntryId: row.journal_entry_id,
    failureCode: row.failure_code,
    createdAt: row.created_at,
  };
}

/** What a transfer needs of its two wallets. */
export interface TransferWallet {
  id: string;
  ownerId: string;
  currencyCode: string;
  status: WalletStatus;
}

/** Both wallets in one statement; a wallet of another tenant or environment is simply absent. */
const transferWalletsJsonSchema = z.array(z.object({ id: z.string(), ownerId: z.string(), currencyCode: z.string(), status: walletStatusSchema }));

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
export async function findTransferContext(tx: Db | Tx, scope: TransferScope, ids: readonly string[], currencyCode: string): Promise<TransferContext> {
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
  return { wallets: new Map(wallets.map((wallet) => [wallet.id, wallet])), terms: parseDefaultTerms(row.terms), maxTransactionAmount: row.max_transaction_amount };
}

export type NewTransfer = Omit<StoredTransfer, 'seq' | 'tenantId' | 'environment' | 'status' | 'journalEntryId' | 'failureCode'>;

/** A pending transfer to insert, with its posting command and the answer its key remembers until the ledger's outcome. */
export interface PendingInsert {
  scope: TransferScope;
  transfer: NewTransfer;
  /** The 202 pending answer. */
  answer: FinalAnswer;
  command: OutboxMessage;
}

/**
 * Inserts pending transfers with their posting commands in the outbox and their idempotency
 * keys, each with its first answer, as one statement for all of them (transfers created in one
 * event-loop turn): a key's part yields a row only when no attempt wrote that key before, the
 * transfer is inserted from that row and its command only once the transfer is. For each
 * insert: the transfer's seq, or null when its key was written first by another attempt (then
 * nothing of it was written).
 */
export async function insertTransfersWithCommands(db: Db, inserts: readonly PendingInsert[]): Promise<Array<string | null>> {
  const answers = firstAnswersStatement(inserts.map((insert) => insert.answer));
  const commands = outboxInsertForRowsStatement(
    inserts.map((insert) => insert.command),
    inserts.map((insert) => insert.transfer.id),
    { name: 'created', column: 'id' },
  );
  const transfers = inserts.map((insert) => insert.transfer);
  const result = await prepared<{ rows: Array<{ id: string; seq: string }> }>(
    db,
    `WITH answer AS (${answers.sql}),
     created AS (
       INSERT INTO transfers (id, tenant_id, environment, from_wallet_id, to_wallet_id, currency_code, amount, fee, commission,
                              fee_schedule_id, fee_rule_id, platform_commission_bps, description, created_at)
       SELECT t.id, t.tenant_id, t.environment, t.from_wallet_id, t.to_wallet_id, t.currency_code, t.amount, t.fee, t.commission,
              t.fee_schedule_id, t.fee_rule_id, t.platform_commission_bps, t.description, t.created_at
       FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
                   CAST(? AS numeric[]), CAST(? AS numeric[]), CAST(? AS numeric[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS integer[]),
                   CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS uuid[]))
         WITH ORDINALITY AS t(id, tenant_id, environment, from_wallet_id, to_wallet_id, currency_code, amount, fee, commission,
                              fee_schedule_id, fee_rule_id, platform_commission_bps, description, created_at, lock_token, position)
       JOIN answer ON answer.lock_token = t.lock_token
       ORDER BY t.position
       RETURNING id, seq
     ),
     command AS (${commands.sql})
     SELECT id, seq FROM created`,
    [
      ...answers.bindings,
      transfers.map((transfer) => transfer.id),
      inserts.map((insert) => insert.scope.tenantId),
      inserts.map((insert) => insert.scope.environment),
      transfers.map((transfer) => transfer.fromWalletId),
      transfers.map((transfer) => transfer.toWalletId),
      transfers.map((transfer) => transfer.currencyCode),
      transfers.map((transfer) => transfer.amount),
      transfers.map((transfer) => transfer.fee),
      transfers.map((transfer) => transfer.commission),
      transfers.map((transfer) => transfer.feeScheduleId),
      transfers.map((transfer) => transfer.feeRuleId),
      transfers.map((transfer) => transfer.platformCommissionBps),
      transfers.map((transfer) => transfer.description),
      transfers.map((transfer) => transfer.createdAt.toISOString()),
      inserts.map((insert) => insert.answer.claim.lockToken),
      ...commands.bindings,
    ] as unknown as readonly Knex.RawBinding[],
  );
  const seqs = new Map(result.rows.map((row) => [row.id, row.seq]));
  return transfers.map((transfer) => seqs.get(transfer.id) ?? null);
}

/** A completion the ledger confirmed, with the answer its caller will be given. */
export interface ConfirmedCompletion {
  scope: TransferScope;
  transfer: { id: string; seq: string };
  journalEntryId: string;
  answer: FinalAnswer;
}

/**
 * Records completions the ledger confirmed and stores their callers' answers, as one statement
 * for all of them (the callers answered by one ledger batch resume together). An answer is
 * stored even when the event path recorded its completion first (it recorded the same entry).
 * For each completion: false when its key's part stored nothing (another attempt holds the key).
 */
export async function completeTransfersWithAnswers(db: Db, completions: readonly ConfirmedCompletion[]): Promise<boolean[]> {
  const answers = finalAnswersStatement(completions.map((completion) => completion.answer));
  const result = await prepared<{ rows: Array<{ lock_token: string }> }>(
    db,
    `WITH finished AS (
       UPDATE transfers t SET status = 'completed', journal_entry_id = u.journal_entry_id, failure_code = NULL, finished_at = now()
       FROM unnest(CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[])) AS u(id, seq, tenant_id, environment, journal_entry_id)
       WHERE t.id = ANY(CAST(? AS text[])) AND t.id = u.id AND t.seq = u.seq AND t.tenant_id = u.tenant_id AND t.environment = u.environment AND t.status = 'pending'
       RETURNING t.id
     ),
     answer AS (${answers.sql})
     SELECT lock_token FROM answer`,
    [
      completions.map((completion) => completion.transfer.id),
      completions.map((completion) => completion.transfer.seq),
      completions.map((completion) => completion.scope.tenantId),
      completions.map((completion) => completion.scope.environment),
      completions.map((completion) => completion.journalEntryId),
      completions.map((completion) => completion.transfer.id),
      ...answers.bindings,
    ] as unknown as readonly Knex.RawBinding[],
  );
  const stored = new Set(result.rows.map((row) => row.lock_token));
  return completions.map((completion) => stored.has(completion.answer.claim.lockToken));
}

export type TransferOutcome = { status: 'completed'; journalEntryId: string } | { status: 'failed'; failureCode: string };

/**
 * Records the ledger's outcome on a pending transfer; null when it is not pending (finished
 * already by the reply or the event path) or not this tenant's. The one place a transfer
 * leaves pending, so it does so exactly once. The row is named by its seq as well as its id:
 * either index then finds it in one step, whatever the planner knows of the table.
 */
export async function finishTransfer(db: Db | Tx, scope: TransferScope, transfer: { id: string; seq: string }, outcome: TransferOutcome): Promise<StoredTransfer | null> {
  const result = await db.raw<{ rows: TransferRow[] }>(
    `UPDATE transfers SET status = ?, journal_entry_id = ?, failure_code = ?, finished_at = now()
     WHERE id = ? AND seq = ? AND tenant_id = ? AND environment = ? AND status = 'pending'
     RETURNING ${COLUMN_LIST}`,
    [
      outcome.status,
      outcome.status === 'completed' ? outcome.journalEntryId : null,
      outcome.status === 'failed' ? outcome.failureCode : null,
      transfer.id,
      transfer.seq,
      scope.tenantId,
      scope.environment,
    ],
  );
  const row = result.rows[0];
  return row ? toTransfer(row) : null;
}

/** An outcome for a transfer named by the ledger's result, with the scope the result carries. */
export interface ScopedTransferOutcome {
  scope: TransferScope;
  id: string;
  outcome: TransferOutcome;
}

/**
 * finishTransfer for many transfers in one statement (the ledger's events, batched): each row
 * still pending in its scope is finished, any other is left as it is. `id = ANY` gives the
 * planner the primary-key lookup outright, rather than a join it might cost as a scan.
 */
export async function finishTransfers(tx: Tx, finishing: readonly ScopedTransferOutcome[]): Promise<number> {
  if (finishing.length === 0) return 0;
  const result = await prepared<{ rowCount: number | null }>(
    tx,
    `UPDATE transfers t
     SET status = u.status, journal_entry_id = u.journal_entry_id, failure_code = u.failure_code, finished_at = now()
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS u(id, tenant_id, environment, status, journal_entry_id, failure_code)
     WHERE t.id = ANY(?::text[]) AND t.id = u.id AND t.tenant_id = u.tenant_id AND t.environment = u.environment AND t.status = 'pending'`,
    [
      finishing.map((each) => each.id),
      finishing.map((each) => each.scope.tenantId),
      finishing.map((each) => each.scope.environment),
      finishing.map((each) => each.outcome.status),
      finishing.map((each) => (each.outcome.status === 'completed' ? each.outcome.journalEntryId : null)),
      finishing.map((each) => (each.outcome.status === 'failed' ? each.outcome.failureCode : null)),
      finishing.map((each) => each.id),
    ] as unknown as readonly Knex.RawBinding[],
  );
  return result.rowCount ?? 0;
}

export async function findTransfer(db: Db | Tx, scope: TransferScope, id: string): Promise<StoredTransfer | null> {
  const row: TransferRow | undefined = await db('transfers').where({ tenant_id: scope.tenantId, environment: scope.environment, id }).first(COLUMNS);
  return row ? toTransfer(row) : null;
}

export interface TransferFilter {
  walletId?: string | undefined;
  status?: TransferStatus | undefined;
  beforeSeq?: string | undefined;
  limit: number;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
export async function listTransfers(db: Db, scope: TransferScope, filter: TransferFilter): Promise<StoredTransfer[]> {
  const query = db('transfers').where({ tenant_id: scope.tenantId, environment: scope.environment }).orderBy('seq', 'desc').limit(filter.limit + 1).select(COLUMNS);
  if (filter.walletId !== undefined) {
    // Each side's index holds the wallet id's hash (20261230120000_transfers_storage); the id itself is compared too.
    const walletId = filter.walletId;
    query.whereRaw(
      '((hashtextextended(from_wallet_id, 0) = hashtextextended(?, 0) AND from_wallet_id = ?) OR (hashtextextended(to_wallet_id, 0) = hashtextextended(?, 0) AND to_wallet_id = ?))',
      [walletId, walletId, walletId, walletId],
    );
  }
  if (filter.status !== undefined) query.where('status', filter.status);
  if (filter.beforeSeq !== undefined) query.where('seq', '<', filter.beforeSeq);
  const rows: TransferRow[] = await query;
  return rows.map(toTransfer);
}

// ---- what reconciliation reads ----
// The by-id reads bind their ids as one array: a list of a thousand parameters cost more to plan than to run.

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
      't.seq', 't.id', 't.tenant_id', 't.environment', 't.currency_code', 't.amount', 't.fee', 't.commission', 't.status', 't.journal_entry_id', createdAtMsColumn(db, 't'),
      't.from_wallet_id', 'fw.owner_id as from_owner_id',
      't.to_wallet_id', 'tw.owner_id as to_owner_id',
    );
}

/** Transfers by id, of any status; within the scope when one is given. */
export async function transfersByIds(db: Db, scope: TransferScope | null, ids: readonly string[]): Promise<ReconciledTransfer[]> {
  if (ids.length === 0) return [];
  const query = transfersWithWallets(db).whereRaw('t.id = ANY(?::text[])', [sqlArray(ids)]);
  if (scope) query.where({ 't.tenant_id': scope.tenantId, 't.environment': scope.environment });
  const rows: ReconciledTransferRow[] = await query;
  return rows.map(toReconciledTransfer);
}

/** A scope's transfers after a seq, in seq order, at most `limit`. */
export async function transfersAfter(db: Db, scope: TransferScope, afterSeq: string, limit: number): Promise<ReconciledTransfer[]> {
  const rows: ReconciledTransferRow[] = await transfersWithWallets(db).where({ 't.tenant_id': scope.tenantId, 't.environment': scope.environment }).where('t.seq', '>', afterSeq).orderBy('t.seq').limit(limit);
  return rows.map(toReconciledTransfer);
}
