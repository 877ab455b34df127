import {
  type ApproveWithdrawalBody,
  checkAmount,
  type CreateWithdrawalBody,
  type ErrorCode,
  ERROR_STATUS,
  formatAmount,
  type LedgerResultV1,
  newId,
  type Page,
  type RejectWithdrawalBody,
  type Withdrawal,
  type WithdrawalQuery,
} from '@wallet/contracts';
import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  currentContext,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  enqueueOutbox,
  IdempotencyInProgressError,
  type InternalClaims,
  type OutboxRelay,
  requireWithinTransactionLimit,
  type SqlStatement,
  type TenantDirectory,
  type Tx,
} from '@wallet/kit';
import {
  answerDecision,
  awaitsLedger,
  commitAndAwait,
  type DecisionAnswers,
  type DecisionResult,
  type LedgerWait,
  type MemberDirectory,
  postingMessage,
  type Postings,
  recordDecisionWithAnswer,
  requirePermittedMember,
  stepOutcomeOf,
  undecidableCaseError,
} from '@wallet/money-commands';
import { stepOfCommand, withdrawalCommandId, withdrawalPostCommand } from './withdrawal-posting';
import {
  type Decision,
  type DecisionOutcome,
  decideWithdrawal,
  findWithdrawal,
  finishDecisions,
  finishHolds,
  type HoldOutcome,
  insertWithdrawalWithHold,
  listWithdrawals,
  type NewWithdrawal,
  recordHoldWithAnswer,
  type ScopedStepOutcome,
  type StoredWithdrawal,
  type TreasuryScope,
} from './withdrawals-store';

export interface WithdrawalsDeps extends LedgerWait {
  db: Db;
  relay: OutboxRelay;
  postings: Pick<Postings, 'replyTo' | 'expect'>;
  members: Pick<MemberDirectory, 'memberOf'>;
  tenants: Pick<TenantDirectory, 'require'>;
  /** How long a request (a creation's hold, a decision's settle or release) waits for the ledger before answering 202. */
  replyTimeoutMs: number;
}

/** How the caller's idempotency key remembers the answers of one creation (as for payouts). */
export interface WithdrawalAnswers {
  pending(withdrawal: Withdrawal): SqlStatement;
  held(withdrawal: Withdrawal): { statement: SqlStatement; answered(): void };
  rememberRefusal(tx: Tx, refusal: AppError): Promise<void>;
}

export interface CreatedWithdrawal {
  /** 201 with the hold posted; 202 when the ledger had not answered by the deadline. A refusal is thrown (422). */
  status: 201 | 202;
  withdrawal: Withdrawal;
}

const CREATE_SCOPE = 'treasury:write';
const APPROVE_SCOPE = 'treasury:approve';

/** A checker's decision on one case, as its transaction commits it. */
interface DecisionTaken {
  scope: TreasuryScope;
  claims: InternalClaims;
  id: string;
  decision: Decision;
  step: 'settle' | 'release';
  replyTo: string | undefined;
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No such withdrawal');
}

/** A body actor must equal the actor the caller declared, header or session (docs/decisions/maker-checker.md). */
function checkDeclaredActor(claims: InternalClaims, bodyActorId: string, field: 'requestedBy' | 'actorId'): void {
  if (claims.actor && claims.actor.id !== bodyActorId) {
    throw new AppError('ACTOR_MISMATCH', `${field} differs from the actor of the request`, { field });
  }
}

/**
 * Tenant withdrawals under maker-checker, the same way as wallet payouts. Each step (hold at
 * creation, settle on approval, release on rejection) commits with its posting command through
 * the outbox, under its own command id, so a step posts once whatever is retried. The ledger
 * decides whether the source holds the amount; a decision is only taken on a case whose hold
 * the ledger posted. Creation and decision alike wait for the ledger's answer to their step up
 * to the same deadline.
 */
export class WithdrawalsService {
  constructor(private readonly deps: WithdrawalsDeps) {}

  async create(scope: TreasuryScope, claims: InternalClaims, body: CreateWithdrawalBody, answers: WithdrawalAnswers): Promise<CreatedWithdrawal> {
    checkDeclaredActor(claims, body.requestedBy, 'requestedBy');
    const problem = checkAmount(body.amount, body.currencyCode);
    if (problem) throw new AppError('INVALID_AMOUNT', `amount is not a valid ${body.currencyCode} amount (${problem})`, { field: 'amount', problem });
    requireWithinTransactionLimit(body.amount, (await this.deps.tenants.require(scope.tenantId)).maxTransactionAmount);
    await requirePermittedMember(this.deps.members, scope.tenantId, body.requestedBy, CREATE_SCOPE);
    const amount = formatAmount(body.amount, body.currencyCode);

    const id = newId('payoutCase');
    const draft: NewWithdrawal = {
      id,
      source: body.source,
      currencyCode: body.currencyCode,
      amount,
      payoutMethod: body.payoutMethod,
      destination: body.destination,
      narration: body.narration ?? null,
      requestedBy: body.requestedBy,
      createdAt: new Date(),
    };
    const command = withdrawalPostCommand({ ...scope, id, source: body.source, currencyCode: body.currencyCode, amount, correlationId: currentContext()?.correlationId }, 'hold');
    const actor = auditActorFieldsOf(claims);
    const audit = auditRecordMessage({
      tenantId: scope.tenantId,
      environment: scope.environment,
      action: 'withdrawal.requested',
      actorType: actor.actorType,
      actorId: body.requestedBy,
      targetType: 'withdrawal',
      targetId: id,
      metadata: { ...actor.metadata, callerActorId: actor.actorId, source: body.source, amount, currencyCode: body.currencyCode, payoutMethod: body.payoutMethod },
    });
    const pendingCase = toWithdrawal(pendingRecord(scope, draft, ''));
    const { committed: created, result } = await commitAndAwait(this.deps, { id: withdrawalCommandId(id, 'hold'), record: { type: 'withdrawal', id } }, async (replyTo) => {
      const seq = await insertWithdrawalWithHold(this.deps.db, scope, draft, { answer: answers.pending(pendingCase), commands: [postingMessage(command, { replyTo }), audit] });
      if (seq === null) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      return pendingRecord(scope, draft, seq);
    });
    const outcome = result ? holdOutcomeOf(result) : null;
    if (!outcome) return { status: 202, withdrawal: pendingCase };
    const finished = await this.recordHold(scope, created, outcome, answers);
    if (finished.status === 'failed') throw refusalOf(finished);
    return { status: finished.holdEntryId ? 201 : 202, withdrawal: toWithdrawal(finished) };
  }

  approve(scope: TreasuryScope, claims: InternalClaims, id: string, body: ApproveWithdrawalBody, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    return this.decide(scope, claims, id, { status: 'approved', decidedBy: body.actorId, rejectionReason: null }, answers);
  }

  reject(scope: TreasuryScope, claims: InternalClaims, id: string, body: RejectWithdrawalBody, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    return this.decide(scope, claims, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason }, answers);
  }

  /** Finishes case steps from ledger events (any instance, any time); a step recorded already is left as it is. */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    const holds: ScopedStepOutcome<HoldOutcome>[] = [];
    const decisions: ScopedStepOutcome<DecisionOutcome>[] = [];
    for (const result of results) {
      if (!result.reference) continue;
      const scope = { tenantId: result.tenantId, environment: result.environment };
      const step = stepOfCommand(result.commandId);
      if (step === 'hold') {
        const outcome = holdOutcomeOf(result);
        if (outcome) holds.push({ scope, id: result.reference.id, outcome });
      } else if (step === 'settle' || step === 'release') {
        const outcome = stepOutcomeOf(result);
        if (outcome) decisions.push({ scope, id: result.reference.id, outcome });
      }
    }
    await finishHolds(tx, holds);
    await finishDecisions(tx, decisions);
  }

  async get(scope: TreasuryScope, id: string): Promise<Withdrawal> {
    const withdrawal = await findWithdrawal(this.deps.db, scope, id);
    if (!withdrawal) throw notFound();
    return toWithdrawal(withdrawal);
  }

  async list(scope: TreasuryScope, query: WithdrawalQuery): Promise<Page<Withdrawal>> {
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listWithdrawals(this.deps.db, scope, { status: query.status, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toWithdrawal), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  /**
   * The checker's step: who may take it is checked first (identity answers for the member now),
   * then the case moves out of pending with its posting command, its audit record and the key's
   * 202 in one transaction, conditional on it still being pending with its hold posted; the
   * answer waits for the ledger's entry (200) up to the deadline (202).
   */
  private async decide(scope: TreasuryScope, claims: InternalClaims, id: string, decision: Decision, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    checkDeclaredActor(claims, decision.decidedBy, 'actorId');
    const current = await findWithdrawal(this.deps.db, scope, id);
    if (!current) throw notFound();
    if (current.requestedBy === decision.decidedBy) throw new AppError('SELF_APPROVAL_FORBIDDEN', 'The requester of a withdrawal cannot decide it', { actorId: decision.decidedBy });
    await requirePermittedMember(this.deps.members, scope.tenantId, decision.decidedBy, APPROVE_SCOPE);

    const step = decision.status === 'approved' ? 'settle' : 'release';
    const { committed: decided, result } = await commitAndAwait(this.deps, { id: withdrawalCommandId(id, step), record: { type: 'withdrawal', id } }, (replyTo) =>
      this.deps.db.transaction((tx) => this.commitDecision(tx, { scope, claims, id, decision, step, replyTo }, answers)),
    );
    return answerDecision(
      result,
      {
        show: (decisionEntryId) => toWithdrawal({ ...decided, decisionEntryId }),
        recordPosted: (journalEntryId, answer) => recordDecisionWithAnswer(this.deps.db, 'withdrawals', scope, id, journalEntryId, answer),
        recordRefused: async (failureCode) => {
          await finishDecisions(this.deps.db, [{ scope, id, outcome: { status: 'refused', failureCode } }]);
        },
      },
      answers,
      `the ${step} of withdrawal ${id}`,
    );
  }

  /** The decision's transaction: the case, its command (answered on `replyTo`), its audit record and the key's 202. */
  private async commitDecision(tx: Tx, taken: DecisionTaken, answers: DecisionAnswers<Withdrawal>): Promise<StoredWithdrawal> {
    const { scope, id, decision } = taken;
    const moved = await decideWithdrawal(tx, scope, id, decision);
    if (!moved) {
      const now = await findWithdrawal(tx, scope, id);
      throw now ? undecidableCaseError(now) : notFound();
    }
    const command = withdrawalPostCommand({ ...scope, id, source: moved.source, currencyCode: moved.currencyCode, amount: moved.amount, correlationId: currentContext()?.correlationId }, taken.step);
    const actor = auditActorFieldsOf(taken.claims);
    await enqueueOutbox(tx, [
      postingMessage(command, { replyTo: taken.replyTo }),
      auditRecordMessage({
        tenantId: scope.tenantId,
        environment: scope.environment,
        action: decision.status === 'approved' ? 'withdrawal.approved' : 'withdrawal.rejected',
        actorType: actor.actorType,
        actorId: decision.decidedBy,
        targetType: 'withdrawal',
        targetId: id,
        metadata: { ...actor.metadata, callerActorId: actor.actorId, before: { status: 'pending' }, after: { status: moved.status }, ...(decision.rejectionReason ? { reason: decision.rejectionReason } : {}) },
      }),
    ]);
    await answers.accepted(tx, toWithdrawal(moved));
    return moved;
  }

  /**
   * Records the hold's outcome this request learnt, with the answer it will give: a posted hold
   * and its 201 in one statement; a refusal (the case fails) and its remembered 422 together.
   * Either may have been recorded first by the event path; the case as recorded is returned.
   */
  private async recordHold(scope: TreasuryScope, created: StoredWithdrawal, outcome: HoldOutcome, answers: WithdrawalAnswers): Promise<StoredWithdrawal> {
    if (outcome.status === 'held') {
      const held: StoredWithdrawal = { ...created, holdEntryId: outcome.journalEntryId };
      const answer = answers.held(toWithdrawal(held));
      const stored = await recordHoldWithAnswer(this.deps.db, scope, created, outcome.journalEntryId, answer.statement);
      if (!stored) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      answer.answered();
      return held;
    }
    return this.deps.db.transaction(async (tx) => {
      await finishHolds(tx, [{ scope, id: created.id, outcome }]);
      const finished = await findWithdrawal(tx, scope, created.id);
      if (!finished) throw new Error(`withdrawal ${created.id} vanished while its hold was recorded`);
      if (finished.status === 'failed') await answers.rememberRefusal(tx, refusalOf(finished));
      return finished;
    });
  }
}

function holdOutcomeOf(result: LedgerResultV1): HoldOutcome | null {
  if (result.status === 'posted' && result.journalEntryId) return { status: 'held', journalEntryId: result.journalEntryId };
  if (result.status === 'rejected') return { status: 'refused', failureCode: result.error?.code ?? 'VALIDATION_ERROR' };
  return null;
}

/** The record a case is from the moment it commits until the ledger answers its hold. */
function pendingRecord(scope: TreasuryScope, draft: NewWithdrawal, seq: string): StoredWithdrawal {
  return { ...draft, seq, tenantId: scope.tenantId, environment: scope.environment, status: 'pending', holdEntryId: null, failureCode: null, decidedBy: null, decidedAt: null, rejectionReason: null, decisionEntryId: null, decisionFailureCode: null };
}

/** The ledger's refusal of the hold as the error the client gets; the failed case is named in details. */
export function refusalOf(withdrawal: StoredWithdrawal): AppError {
  const reported = withdrawal.failureCode ?? 'VALIDATION_ERROR';
  const code: ErrorCode = reported in ERROR_STATUS ? (reported as ErrorCode) : 'VALIDATION_ERROR';
  const message = code === 'INSUFFICIENT_FUNDS' ? `The ${withdrawal.source === 'tenant_fees' ? 'fee revenue' : 'operating float'} does not hold the amount` : `The ledger refused the withdrawal hold (${reported})`;
  return new AppError(code, message, { withdrawalId: withdrawal.id });
}

export function toWithdrawal(withdrawal: StoredWithdrawal): Withdrawal {
  return {
    id: withdrawal.id,
    source: withdrawal.source,
    amount: formatAmount(withdrawal.amount, withdrawal.currencyCode),
    currencyCode: withdrawal.currencyCode,
    payoutMethod: withdrawal.payoutMethod,
    destination: withdrawal.destination,
    narration: withdrawal.narration,
    requestedBy: withdrawal.requestedBy,
    status: withdrawal.status,
    holdJournalEntryId: withdrawal.holdEntryId,
    failureCode: withdrawal.failureCode,
    decidedBy: withdrawal.decidedBy,
    decidedAt: withdrawal.decidedAt ? withdrawal.decidedAt.toISOString() : null,
    rejectionReason: withdrawal.rejectionReason,
    decisionJournalEntryId: withdrawal.decisionEntryId,
    awaitingLedger: awaitsLedger(withdrawal),
    createdAt: withdrawal.createdAt.toISOString(),
  };
}
