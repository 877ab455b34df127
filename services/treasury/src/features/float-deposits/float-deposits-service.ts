import { checkAmount, type CreateFloatDepositBody, type ErrorCode, ERROR_STATUS, type FloatDeposit, type FloatDepositQuery, formatAmount, type LedgerResultV1, newId, type Page } from '@wallet/contracts';
import {
  AppError,
  currentContext,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  IdempotencyInProgressError,
  type OutboxRelay,
  requireWithinTransactionLimit,
  type SqlStatement,
  type TenantDirectory,
  type Tx,
} from '@wallet/kit';
import { type MemberDirectory, postingMessage, type Postings, requirePermittedMember } from '@wallet/money-commands';
import { floatDepositCommandId, floatDepositPostCommand } from './float-deposit-posting';
import {
  completeFloatDepositWithAnswer,
  findFloatDeposit,
  type FloatDepositOutcome,
  finishFloatDeposits,
  insertFloatDepositWithCommand,
  listFloatDeposits,
  type NewFloatDeposit,
  type ScopedFloatDepositOutcome,
  type StoredFloatDeposit,
  type TreasuryScope,
} from './float-deposits-store';

export interface FloatDepositsDeps {
  db: Db;
  relay: OutboxRelay;
  postings: Pick<Postings, 'replyTo' | 'expect'>;
  tenants: Pick<TenantDirectory, 'require'>;
  members: Pick<MemberDirectory, 'memberOf'>;
  /** How long a request waits for the ledger's answer before answering 202 pending. */
  replyTimeoutMs: number;
}

/** How the caller's idempotency key remembers the answers of one creation (as for transfers). */
export interface FloatDepositAnswers {
  pending(deposit: FloatDeposit): SqlStatement;
  completed(deposit: FloatDeposit): { statement: SqlStatement; answered(): void };
  rememberRefusal(tx: Tx, refusal: AppError): Promise<void>;
}

export interface CreatedFloatDeposit {
  status: 201 | 202;
  deposit: FloatDeposit;
}

const DEPOSITOR_SCOPE = 'treasury:write';

export function outcomeOf(result: LedgerResultV1): FloatDepositOutcome | null {
  if (result.status === 'posted' && result.journalEntryId) return { status: 'completed', journalEntryId: result.journalEntryId };
  if (result.status === 'rejected') return { status: 'failed', failureCode: result.error?.code ?? 'VALIDATION_ERROR' };
  return null;
}

/**
 * Tenant float deposits. The record, its posting command (through the outbox) and the
 * idempotency key's pending answer commit in one statement; the ledger's answer finishes the
 * record exactly once, from the reply this request waits for or from the ledger's event.
 */
export class FloatDepositsService {
  constructor(private readonly deps: FloatDepositsDeps) {}

  async create(scope: TreasuryScope, body: CreateFloatDepositBody, answers: FloatDepositAnswers): Promise<CreatedFloatDeposit> {
    const problem = checkAmount(body.amount, body.currencyCode);
    if (problem) throw new AppError('INVALID_AMOUNT', `amount is not a valid ${body.currencyCode} amount (${problem})`, { field: 'amount', problem });
    requireWithinTransactionLimit(body.amount, (await this.deps.tenants.require(scope.tenantId)).maxTransactionAmount);
    // The depositor answers for the money as a withdrawal's maker does: an active member allowed to move treasury funds.
    if (body.depositedBy !== undefined) await requirePermittedMember(this.deps.members, scope.tenantId, body.depositedBy, DEPOSITOR_SCOPE);
    const amount = formatAmount(body.amount, body.currencyCode);
    const id = newId('floatDeposit');
    const draft: NewFloatDeposit = {
      id,
      currencyCode: body.currencyCode,
      amount,
      rail: body.rail,
      externalReference: body.externalReference ?? null,
      depositedBy: body.depositedBy ?? null,
      note: body.note ?? null,
      createdAt: new Date(),
    };
    const command = floatDepositPostCommand({ ...scope, id, currencyCode: body.currencyCode, amount, rail: body.rail, correlationId: currentContext()?.correlationId });
    const created = pendingRecord(scope, draft, '');
    // Waiting starts before the commit: the relay may publish and the ledger answer before this resumes.
    const pending = this.deps.postings.expect(floatDepositCommandId(id), this.deps.replyTimeoutMs, { type: 'float_deposit', id });
    try {
      const seq = await insertFloatDepositWithCommand(this.deps.db, scope, draft, {
        answer: answers.pending(toFloatDeposit(created)),
        command: postingMessage(command, { replyTo: this.deps.postings.replyTo }),
      });
      if (seq === null) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      created.seq = seq;
    } catch (error) {
      pending.cancel();
      throw error;
    }
    this.deps.relay.wake();

    const result = await pending.result;
    const outcome = result ? outcomeOf(result) : null;
    if (!outcome) return { status: 202, deposit: toFloatDeposit(created) };
    const finished = await this.settle(scope, created, outcome, answers);
    if (finished.status === 'completed') return { status: 201, deposit: toFloatDeposit(finished) };
    if (finished.status === 'failed') throw refusalOf(finished);
    return { status: 202, deposit: toFloatDeposit(finished) };
  }

  /** Finishes float deposits from ledger events: a no-op for one finished already. */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    const finishing: ScopedFloatDepositOutcome[] = [];
    for (const result of results) {
      const outcome = outcomeOf(result);
      if (outcome && result.reference) finishing.push({ scope: { tenantId: result.tenantId, environment: result.environment }, id: result.reference.id, outcome });
    }
    await finishFloatDeposits(tx, finishing);
  }

  async get(scope: TreasuryScope, id: string): Promise<FloatDeposit> {
    const deposit = await findFloatDeposit(this.deps.db, scope, id);
    if (!deposit) throw new AppError('FLOAT_DEPOSIT_NOT_FOUND', 'No such float deposit');
    return toFloatDeposit(deposit);
  }

  async list(scope: TreasuryScope, query: FloatDepositQuery): Promise<Page<FloatDeposit>> {
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listFloatDeposits(this.deps.db, scope, { status: query.status, currencyCode: query.currencyCode, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toFloatDeposit), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  /** A completion and its 201 are one statement; a refusal and its remembered error commit together. */
  private async settle(scope: TreasuryScope, created: StoredFloatDeposit, outcome: FloatDepositOutcome, answers: FloatDepositAnswers): Promise<StoredFloatDeposit> {
    if (outcome.status === 'completed') {
      const completed: StoredFloatDeposit = { ...created, status: 'completed', journalEntryId: outcome.journalEntryId, failureCode: null };
      const answer = answers.completed(toFloatDeposit(completed));
      const stored = await completeFloatDepositWithAnswer(this.deps.db, scope, created, outcome.journalEntryId, answer.statement);
      if (!stored) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      answer.answered();
      return completed;
    }
    return this.deps.db.transaction(async (tx) => {
      await finishFloatDeposits(tx, [{ scope, id: created.id, outcome }]);
      const finished = await findFloatDeposit(tx, scope, created.id);
      if (!finished) throw new Error(`float deposit ${created.id} vanished while it was finished`);
      if (finished.status === 'failed') await answers.rememberRefusal(tx, refusalOf(finished));
      return finished;
    });
  }
}

function pendingRecord(scope: TreasuryScope, draft: NewFloatDeposit, seq: string): StoredFloatDeposit {
  return { ...draft, seq, tenantId: scope.tenantId, environment: scope.environment, status: 'pending', journalEntryId: null, failureCode: null };
}

/** The ledger's refusal as the error the client gets; the deposit, recorded as failed, is named in details. */
export function refusalOf(deposit: StoredFloatDeposit): AppError {
  const reported = deposit.failureCode ?? 'VALIDATION_ERROR';
  const code: ErrorCode = reported in ERROR_STATUS ? (reported as ErrorCode) : 'VALIDATION_ERROR';
  return new AppError(code, `The ledger refused the float deposit (${reported})`, { floatDepositId: deposit.id });
}

export function toFloatDeposit(deposit: StoredFloatDeposit): FloatDeposit {
  return {
    id: deposit.id,
    amount: formatAmount(deposit.amount, deposit.currencyCode),
    currencyCode: deposit.currencyCode,
    rail: deposit.rail,
    externalReference: deposit.externalReference,
    depositedBy: deposit.depositedBy,
    note: deposit.note,
    status: deposit.status,
    journalEntryId: deposit.journalEntryId,
    failureCode: deposit.failureCode,
    createdAt: deposit.createdAt.toISOString(),
  };
}
