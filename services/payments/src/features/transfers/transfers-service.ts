import { checkAmount, type CreateTransferBody, type ErrorCode, ERROR_STATUS, formatAmount, type LedgerResultV1, newId, type Page, type Transfer, type TransferQuery } from '@wallet/contracts';
import {
  AppError,
  currentContext,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  type FinalAnswer,
  IdempotencyInProgressError,
  inSpan,
  microBatch,
  STATEMENT_BATCH_CONCURRENCY,
  type OutboxRelay,
  requireWithinTransactionLimit,
  type StoredResponse,
  type TenantDirectory,
  type Tx,
} from '@wallet/kit';
import { postingMessage, type Postings } from '@wallet/money-commands';
import { quoteFromTerms } from '../fees/quote-fee';
import { transferCommandId, transferPostCommand } from './transfer-posting';
import {
  completeTransfersWithAnswers,
  type ConfirmedCompletion,
  findTransfer,
  findTransferContext,
  finishTransfer,
  finishTransfers,
  insertTransfersWithCommands,
  type PendingInsert,
  listTransfers,
  type NewTransfer,
  type ScopedTransferOutcome,
  type StoredTransfer,
  type TransferContext,
  type TransferOutcome,
  type TransferScope,
} from './transfers-store';

export interface TransfersDeps {
  db: Db;
  relay: OutboxRelay;
  tenants: Pick<TenantDirectory, 'require'>;
  postings: Pick<Postings, 'replyTo' | 'expect' | 'recordedFromReply'>;
  /** How long a request waits for the ledger's answer before answering 202 pending. */
  replyTimeoutMs: number;
}

/** How the caller's idempotency key remembers the answers of one creation. */
export interface TransferAnswers {
  /**
   * The 202 pending answer, the key's first, as a part of the creating statement: a crash after
   * the commit replays it, never re-runs it. It yields no row when another attempt wrote the
   * key first.
   */
  pending(transfer: Transfer): FinalAnswer;
  /** The creating statement committed: the key holds this request's answer from now on. */
  written(): void;
  /** The 201, stored with the completion in one statement; `answered` once it committed. */
  completed(transfer: Transfer): { answer: FinalAnswer; answered(): void };
  /** With the failure recorded: the 422 replaces the pending answer, so a replay is the refusal the client got. */
  rememberRefusal(tx: Tx, refusal: AppError): Promise<void>;
}

export interface CreatedTransfer {
  /** 201 completed, 202 still pending at the deadline. A refusal by the ledger is thrown (422). */
  status: 201 | 202;
  transfer: Transfer;
  /** The answer the key remembers for this request, exactly: sent as it is, not serialized again. */
  answer?: StoredResponse;
}

function walletNotFound(walletId: string): AppError {
  return new AppError('WALLET_NOT_FOUND', 'No such wallet', { walletId });
}

/** What a ledger result means for the transfer it names; null for a result that is not an outcome. */
export function outcomeOf(result: LedgerResultV1): TransferOutcome | null {
  if (result.status === 'posted' && result.journalEntryId) return { status: 'completed', journalEntryId: result.journalEntryId };
  if (result.status === 'rejected') return { status: 'failed', failureCode: result.error?.code ?? 'VALIDATION_ERROR' };
  return null;
}

/**
 * Transfers between two wallets of a tenant's environment. The transfer row, its posting
 * command (through the outbox) and the idempotency key's pending answer commit in one
 * statement; the ledger decides (balances, freezes) and its answer finishes the row exactly
 * once, from the reply this request waits for or from the ledger's event.
 */
export class TransfersService {
  /** Completions confirmed in one event-loop turn (one ledger batch's replies) are recorded together. */
  private readonly recordCompletion: (completion: ConfirmedCompletion) => Promise<boolean>;

  /** Transfers created in one event-loop turn read their context together, one statement per tenant, environment and currency. */
  private readonly readContext: (ask: ContextRead) => Promise<TransferContext>;

  /** Transfers created in one event-loop turn are inserted, with their commands and answers, together. */
  private readonly insertPending: (insert: PendingInsert) => Promise<string | null>;

  constructor(private readonly deps: TransfersDeps) {
    const concurrency = STATEMENT_BATCH_CONCURRENCY;
    this.insertPending = microBatch((inserts: PendingInsert[]) => insertTransfersWithCommands(deps.db, inserts), { isolateFailures: true, concurrency });
    this.recordCompletion = microBatch((completions: ConfirmedCompletion[]) => completeTransfersWithAnswers(deps.db, completions), { isolateFailures: true, concurrency });
    this.readContext = microBatch((asks: ContextRead[]) => readContexts(deps.db, asks), { concurrency });
  }

  async create(scope: TransferScope, body: CreateTransferBody, answers: TransferAnswers): Promise<CreatedTransfer> {
    if (body.fromWalletId === body.toWalletId) throw new AppError('SAME_WALLET', 'A transfer needs two different wallets', { walletId: body.fromWalletId });
    const problem = checkAmount(body.amount, body.currencyCode);
    if (problem) throw new AppError('INVALID_AMOUNT', `amount is not a valid ${body.currencyCode} amount (${problem})`, { field: 'amount', problem });

    // Read outside any transaction, in one round trip: a wallet's currency never changes,
    // payments' copy of its status only refuses early (the ledger enforces a freeze atomically
    // either way), and the fee and the ceiling are whatever the tenant's configuration says at
    // this moment.
    const { wallets, terms, maxTransactionAmount } = await this.readContext({ scope, walletIds: [body.fromWalletId, body.toWalletId], currencyCode: body.currencyCode });
    const from = wallets.get(body.fromWalletId);
    const to = wallets.get(body.toWalletId);
    if (!from) throw walletNotFound(body.fromWalletId);
    if (!to) throw walletNotFound(body.toWalletId);
    for (const wallet of [from, to]) {
      if (wallet.currencyCode !== body.currencyCode) {
        throw new AppError('CURRENCY_MISMATCH', `Wallet ${wallet.id} holds ${wallet.currencyCode}, not ${body.currencyCode}`, { walletId: wallet.id, walletCurrencyCode: wallet.currencyCode, currencyCode: body.currencyCode });
      }
    }
    if (from.status === 'frozen') throw new AppError('WALLET_FROZEN', 'The sending wallet is frozen', { walletId: from.id });
    // The ceiling came with the context; only a tenant payments has not heard of costs a lookup.
    requireWithinTransactionLimit(body.amount, maxTransactionAmount ?? (await this.deps.tenants.require(scope.tenantId)).maxTransactionAmount);
    const amount = formatAmount(body.amount, body.currencyCode);
    const quote = quoteFromTerms(terms, 'transfer', body.currencyCode, amount);

    const id = newId('transfer');
    const draft: NewTransfer = {
      id,
      fromWalletId: from.id,
      toWalletId: to.id,
      currencyCode: body.currencyCode,
      amount,
      fee: quote.fee,
      commission: quote.commission,
      feeScheduleId: quote.scheduleId,
      feeRuleId: quote.ruleId,
      platformCommissionBps: quote.platformCommissionBps,
      description: body.description ?? null,
      createdAt: new Date(),
    };
    const command = transferPostCommand({ ...scope, id, currencyCode: body.currencyCode, amount, fee: quote.fee, commission: quote.commission, correlationId: currentContext()?.correlationId }, from, to);
    const pendingTransfer = pendingTransferOf(draft);
    const pendingAnswer = answers.pending(pendingTransfer);
    // Waiting starts before the commit: the relay may publish and the ledger answer before this resumes.
    const pending = this.deps.postings.expect(transferCommandId(id), this.deps.replyTimeoutMs, { type: 'transfer', id });
    const message = postingMessage(command, { replyTo: this.deps.postings.replyTo });
    const handOver = this.deps.relay.handOver([message]);
    let created: { id: string; seq: string };
    try {
      // The transfer, its posting command and the key's 202 commit as one statement.
      const seq = await this.insertPending({ scope, transfer: draft, answer: pendingAnswer, command: message });
      // The key's owner answers for it (its replay, or 422 for another request): see the idempotency middleware.
      if (seq === null) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key came first');
      answers.written();
      created = { id, seq };
    } catch (error) {
      handOver.abandon();
      pending.cancel();
      throw error;
    }
    // The command goes out now, batched with those of the same turn, without a relay pass.
    handOver.committed();

    const result = await pending.result;
    const outcome = result ? outcomeOf(result) : null;
    if (!outcome) return { status: 202, transfer: pendingTransfer, answer: pendingAnswer.response };
    // The record finishes in the request's trace, as the event path's finish span does in the command's.
    if (outcome.status === 'completed') return inSpan('finish transfer', {}, () => this.complete(scope, created, pendingTransfer, outcome.journalEntryId, answers));
    const finished = await inSpan('finish transfer', {}, () => this.refuse(scope, created, outcome, answers));
    if (finished.status === 'failed') throw refusalOf(finished);
    return { status: finished.status === 'completed' ? 201 : 202, transfer: toTransfer(finished) };
  }

  /**
   * Finishes transfers from ledger events (any instance, any time): a no-op for one finished
   * already or a result that names no transfer of ours.
   */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    const finishing: ScopedTransferOutcome[] = [];
    for (const result of results) {
      const outcome = outcomeOf(result);
      if (outcome && result.reference) finishing.push({ scope: { tenantId: result.tenantId, environment: result.environment }, id: result.reference.id, outcome });
    }
    await finishTransfers(tx, finishing);
  }

  async get(scope: TransferScope, id: string): Promise<Transfer> {
    const transfer = await findTransfer(this.deps.db, scope, id);
    if (!transfer) throw new AppError('TRANSFER_NOT_FOUND', 'No such transfer');
    return toTransfer(transfer);
  }

  async list(scope: TransferScope, query: TransferQuery): Promise<Page<Transfer>> {
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listTransfers(this.deps.db, scope, { walletId: query.walletId, status: query.status, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toTransfer), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  /**
   * Records the completion the ledger confirmed with the 201 this request will give, in one
   * statement (the event path, if it got there first, recorded the same entry).
   */
  private async complete(scope: TransferScope, created: { id: string; seq: string }, pendingTransfer: Transfer, journalEntryId: string, answers: TransferAnswers): Promise<CreatedTransfer> {
    const transfer: Transfer = { ...pendingTransfer, status: 'completed', journalEntryId };
    const answer = answers.completed(transfer);
    const stored = await this.recordCompletion({ scope, transfer: created, journalEntryId, answer: answer.answer });
    // Recorded either way (the completion is unconditional on the key): its event needs no statement.
    this.deps.postings.recordedFromReply(transferCommandId(created.id));
    if (!stored) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
    answer.answered();
    return { status: 201, transfer, answer: answer.answer.response };
  }

  /**
   * Records the ledger's refusal with the 422 this request will give, in one transaction; or
   * reads the outcome recorded first by the event path.
   */
  private async refuse(scope: TransferScope, created: { id: string; seq: string }, outcome: TransferOutcome, answers: TransferAnswers): Promise<StoredTransfer> {
    const finished = await this.deps.db.transaction(async (tx) => {
      const recorded = await finishTransfer(tx, scope, created, outcome);
      const current = recorded ?? (await findTransfer(tx, scope, created.id));
      if (!current) throw new Error(`transfer ${created.id} vanished while it was finished`);
      if (current.status === 'failed') await answers.rememberRefusal(tx, refusalOf(current));
      return current;
    });
    this.deps.postings.recordedFromReply(transferCommandId(created.id));
    return finished;
  }
}

interface ContextRead {
  scope: TransferScope;
  walletIds: readonly string[];
  currencyCode: string;
}


/**
 * The contexts of several transfers: those of one tenant, environment and currency share one
 * read of all their wallets and of the fee terms. Each caller picks its own two wallets from
 * its group's, all of its own scope.
 */
async function readContexts(db: Db, asks: readonly ContextRead[]): Promise<TransferContext[]> {
  const groups = new Map<string, { scope: TransferScope; currencyCode: string; walletIds: Set<string> }>();
  const groupKeys = asks.map((ask) => {
    const key = `${ask.scope.tenantId}\u0000${ask.scope.environment}\u0000${ask.currencyCode}`;
    const group = groups.get(key);
    if (group) for (const id of ask.walletIds) group.walletIds.add(id);
    else groups.set(key, { scope: ask.scope, currencyCode: ask.currencyCode, walletIds: new Set(ask.walletIds) });
    return key;
  });
  const contexts = new Map<string, TransferContext>();
  await Promise.all(
    [...groups].map(async ([key, group]) => {
      contexts.set(key, await findTransferContext(db, group.scope, [...group.walletIds], group.currencyCode));
    }),
  );
  return groupKeys.map((key) => contexts.get(key) as TransferContext);
}

/** What a transfer looks like from the moment it commits until the ledger answers. */
function pendingTransferOf(draft: NewTransfer): Transfer {
  return {
    id: draft.id,
    fromWalletId: draft.fromWalletId,
    toWalletId: draft.toWalletId,
    amount: draft.amount,
    currencyCode: draft.currencyCode,
    fee: formatAmount(draft.fee, draft.currencyCode),
    status: 'pending',
    journalEntryId: null,
    failureCode: null,
    description: draft.description,
    createdAt: draft.createdAt.toISOString(),
  };
}

const REFUSAL_MESSAGES: Partial<Record<string, string>> = {
  INSUFFICIENT_FUNDS: 'The sending wallet does not hold the amount plus the fee',
  WALLET_FROZEN: 'The sending wallet is frozen',
};

/** The ledger's refusal as the error the client gets; the transfer, recorded as failed, is named in details. */
export function refusalOf(transfer: StoredTransfer): AppError {
  const reported = transfer.failureCode ?? 'VALIDATION_ERROR';
  const code: ErrorCode = reported in ERROR_STATUS ? (reported as ErrorCode) : 'VALIDATION_ERROR';
  return new AppError(code, REFUSAL_MESSAGES[code] ?? `The ledger refused the transfer (${reported})`, { transferId: transfer.id });
}

export function toTransfer(transfer: StoredTransfer): Transfer {
  return {
    id: transfer.id,
    fromWalletId: transfer.fromWalletId,
    toWalletId: transfer.toWalletId,
    amount: formatAmount(transfer.amount, transfer.currencyCode),
    currencyCode: transfer.currencyCode,
    fee: formatAmount(transfer.fee, transfer.currencyCode),
    status: transfer.status,
    journalEntryId: transfer.journalEntryId,
    failureCode: transfer.failureCode,
    description: transfer.description,
    createdAt: transfer.createdAt.toISOString(),
  };
}
