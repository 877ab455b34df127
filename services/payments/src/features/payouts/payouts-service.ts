import {
  type ApprovePayoutBody,
  checkAmount,
  type CreatePayoutBody,
  type ErrorCode,
  ERROR_STATUS,
  formatAmount,
  type LedgerResultV1,
  newId,
  type Page,
  type PayoutCase,
  type PayoutCaseQuery,
  type RejectPayoutBody,
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
import { quoteFee } from '../fees/quote-fee';
import { payoutCommandId, payoutPostCommand, stepOfCommand } from './payout-posting';
import {
  type Decision,
  type DecisionOutcome,
  decideCase,
  findCase,
  findPayoutWallet,
  finishDecisions,
  finishHolds,
  finishOutcomes,
  type HoldOutcome,
  insertCaseWithHold,
  listCases,
  type NewPayoutCase,
  type PayoutScope,
  recordHoldWithAnswer,
  type ScopedStepOutcome,
  type StoredPayoutCase,
} from './payouts-store';

export interface PayoutsDeps extends LedgerWait {
  db: Db;
  relay: OutboxRelay;
  postings: Pick<Postings, 'replyTo' | 'expect'>;
  members: Pick<MemberDirectory, 'memberOf'>;
  tenants: Pick<TenantDirectory, 'require'>;
  /** How long a request (a creation's hold, a decision's settle or release) waits for the ledger before answering 202. */
  replyTimeoutMs: number;
}

/** How the caller's idempotency key remembers the answers of one creation (as for transfers). */
export interface PayoutAnswers {
  pending(payout: PayoutCase): SqlStatement;
  held(payout: PayoutCase): { statement: SqlStatement; answered(): void };
  rememberRefusal(tx: Tx, refusal: AppError): Promise<void>;
}

export interface CreatedPayout {
  /** 201 with the hold posted; 202 when the ledger had not answered by the deadline. A refusal is thrown (422). */
  status: 201 | 202;
  payout: PayoutCase;
}

/** A checker's decision on one case, as its transaction commits it. */
interface DecisionTaken {
  scope: PayoutScope;
  claims: InternalClaims;
  id: string;
  decision: Decision;
  step: 'settle' | 'release';
  replyTo: string | undefined;
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No such payout case');
}

/** A body actor must equal the actor the caller declared, header or session (docs/decisions/authentication.md). */
function checkDeclaredActor(claims: InternalClaims, bodyActorId: string, field: 'requestedBy' | 'actorId'): void {
  if (claims.actor && claims.actor.id !== bodyActorId) {
    throw new AppError('ACTOR_MISMATCH', `${field} differs from the actor of the request`, { field });
  }
}

/**
 * Wallet payouts under maker-checker. Each step (hold at creation, settle on approval, release
 * on rejection) commits with its posting command through the outbox, under its own command id,
 * so a step posts once whatever is retried. The ledger decides whether the hold fits the wallet
 * (funds, freeze); a decision is only taken on a case whose hold the ledger posted. Creation and
 * decision alike wait for the ledger's answer to their step up to the same deadline.
 */
export class PayoutsService {
  constructor(private readonly deps: PayoutsDeps) {}

  async create(scope: PayoutScope, claims: InternalClaims, body: CreatePayoutBody, answers: PayoutAnswers): Promise<CreatedPayout> {
    checkDeclaredActor(claims, body.requestedBy, 'requestedBy');
    const problem = checkAmount(body.amount, body.currencyCode);
    if (problem) throw new AppError('INVALID_AMOUNT', `amount is not a valid ${body.currencyCode} amount (${problem})`, { field: 'amount', problem });
    const wallet = await findPayoutWallet(this.deps.db, scope, body.walletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND', 'No such wallet', { walletId: body.walletId });
    if (wallet.currencyCode !== body.currencyCode) {
      throw new AppError('CURRENCY_MISMATCH', `Wallet ${wallet.id} holds ${wallet.currencyCode}, not ${body.currencyCode}`, { walletId: wallet.id, walletCurrencyCode: wallet.currencyCode, currencyCode: body.currencyCode });
    }
    // Payments' copy of the status only refuses early; the ledger enforces a freeze atomically.
    if (wallet.status === 'frozen') throw new AppError('WALLET_FROZEN', 'The wallet is frozen', { walletId: wallet.id });
    requireWithinTransactionLimit(body.amount, (await this.deps.tenants.require(scope.tenantId)).maxTransactionAmount);
    await this.requireMember(scope.tenantId, body.requestedBy, 'payouts:create');
    const amount = formatAmount(body.amount, body.currencyCode);
    const quote = await quoteFee(this.deps.db, scope.tenantId, 'payout', body.currencyCode, amount);

    const id = newId('payoutCase');
    const draft: NewPayoutCase = {
      id,
      walletId: wallet.id,
      currencyCode: body.currencyCode,
      amount,
      fee: quote.fee,
      commission: quote.commission,
      feeScheduleId: quote.scheduleId,
      feeRuleId: quote.ruleId,
      platformCommissionBps: quote.platformCommissionBps,
      payoutMethod: body.payoutMethod,
      destination: body.destination,
      narration: body.narration ?? null,
      requestedBy: body.requestedBy,
      createdAt: new Date(),
    };
    const command = payoutPostCommand({ ...scope, id, walletId: wallet.id, walletOwnerId: wallet.ownerId, currencyCode: body.currencyCode, amount, fee: quote.fee, commission: quote.commission, correlationId: currentContext()?.correlationId }, 'hold');
    const pendingCase = toPayoutCase(pendingRecord(scope, draft, ''));
    const { committed: created, result } = await commitAndAwait(this.deps, { id: payoutCommandId(id, 'hold'), record: { type: 'payout', id } }, async (replyTo) => {
      const seq = await insertCaseWithHold(this.deps.db, scope, draft, { answer: answers.pending(pendingCase), command: postingMessage(command, { replyTo }) });
      if (seq === null) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      return pendingRecord(scope, draft, seq);
    });
    const outcome = result ? holdOutcomeOf(result) : null;
    if (!outcome) return { status: 202, payout: pendingCase };
    const finished = await this.recordHold(scope, created, outcome, answers);
    if (finished.status === 'failed') throw refusalOf(finished);
    return { status: finished.holdEntryId ? 201 : 202, payout: toPayoutCase(finished) };
  }

  approve(scope: PayoutScope, claims: InternalClaims, id: string, body: ApprovePayoutBody, answers: DecisionAnswers<PayoutCase>): Promise<DecisionResult<PayoutCase>> {
    return this.decide(scope, claims, id, { status: 'approved', decidedBy: body.actorId, rejectionReason: null }, answers);
  }

  reject(scope: PayoutScope, claims: InternalClaims, id: string, body: RejectPayoutBody, answers: DecisionAnswers<PayoutCase>): Promise<DecisionResult<PayoutCase>> {
    return this.decide(scope, claims, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason }, answers);
  }

  /** Finishes case steps from ledger events (any instance, any time); a step recorded already is left as it is. */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    const holds: ScopedStepOutcome<HoldOutcome>[] = [];
    const decisions: ScopedStepOutcome<DecisionOutcome>[] = [];
    const outcomes: ScopedStepOutcome<DecisionOutcome>[] = [];
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
      } else if (step === 'complete' || step === 'fail') {
        const outcome = stepOutcomeOf(result);
        if (outcome) outcomes.push({ scope, id: result.reference.id, outcome });
      }
    }
    await finishHolds(tx, holds);
    await finishDecisions(tx, decisions);
    await finishOutcomes(tx, outcomes);
  }

  async get(scope: PayoutScope, id: string): Promise<PayoutCase> {
    const payout = await findCase(this.deps.db, scope, id);
    if (!payout) throw notFound();
    return toPayoutCase(payout);
  }

  async list(scope: PayoutScope, query: PayoutCaseQuery): Promise<Page<PayoutCase>> {
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listCases(this.deps.db, scope, { walletId: query.walletId, status: query.status, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toPayoutCase), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  /**
   * The checker's step: who may take it is checked first (identity answers for the member now),
   * then the case moves out of pending with its posting command, its audit record and the key's
   * 202 in one transaction, conditional on it still being pending with its hold posted; the
   * answer waits for the ledger's entry (200) up to the deadline (202).
   */
  private async decide(scope: PayoutScope, claims: InternalClaims, id: string, decision: Decision, answers: DecisionAnswers<PayoutCase>): Promise<DecisionResult<PayoutCase>> {
    checkDeclaredActor(claims, decision.decidedBy, 'actorId');
    const current = await findCase(this.deps.db, scope, id);
    if (!current) throw notFound();
    if (current.requestedBy === decision.decidedBy) throw new AppError('SELF_APPROVAL_FORBIDDEN', 'The requester of a payout cannot decide it', { actorId: decision.decidedBy });
    await this.requireMember(scope.tenantId, decision.decidedBy, 'payouts:approve');

    const step = decision.status === 'approved' ? 'settle' : 'release';
    const { committed: decided, result } = await commitAndAwait(this.deps, { id: payoutCommandId(id, step), record: { type: 'payout', id } }, (replyTo) =>
      this.deps.db.transaction((tx) => this.commitDecision(tx, { scope, claims, id, decision, step, replyTo }, answers)),
    );
    return answerDecision(
      result,
      {
        show: (decisionEntryId) => toPayoutCase({ ...decided, decisionEntryId }),
        recordPosted: (journalEntryId, answer) => recordDecisionWithAnswer(this.deps.db, 'payout_cases', scope, id, journalEntryId, answer),
        recordRefused: async (failureCode) => {
          await this.deps.db.transaction((tx) => finishDecisions(tx, [{ scope, id, outcome: { status: 'refused', failureCode } }]));
        },
      },
      answers,
      `the ${step} of payout case ${id}`,
    );
  }

  /** The decision's transaction: the case, its command (answered on `replyTo`), its audit record and the key's 202. */
  private async commitDecision(tx: Tx, taken: DecisionTaken, answers: DecisionAnswers<PayoutCase>): Promise<StoredPayoutCase> {
    const { scope, id, decision } = taken;
    const moved = await decideCase(tx, scope, id, decision);
    if (!moved) {
      const now = await findCase(tx, scope, id);
      throw now ? undecidableCaseError(now) : notFound();
    }
    const { payout, walletOwnerId } = moved;
    const command = payoutPostCommand({ ...scope, id, walletId: payout.walletId, walletOwnerId, currencyCode: payout.currencyCode, amount: payout.amount, fee: payout.fee, commission: payout.commission, correlationId: currentContext()?.correlationId }, taken.step);
    const actor = auditActorFieldsOf(taken.claims);
    await enqueueOutbox(tx, [
      postingMessage(command, { replyTo: taken.replyTo }),
      auditRecordMessage({
        tenantId: scope.tenantId,
        environment: scope.environment,
        action: decision.status === 'approved' ? 'payout.approved' : 'payout.rejected',
        actorType: actor.actorType,
        actorId: decision.decidedBy,
        targetType: 'payout_case',
        targetId: id,
        metadata: { ...actor.metadata, callerActorId: actor.actorId, before: { status: 'pending' }, after: { status: payout.status }, ...(decision.rejectionReason ? { reason: decision.rejectionReason } : {}) },
      }),
    ]);
    await answers.accepted(tx, toPayoutCase(payout));
    return payout;
  }

  /** An active member of the tenant whose role grants `scope`; else 403 ACTOR_NOT_PERMITTED. */
  private requireMember(tenantId: string, memberId: string, scope: string): Promise<void> {
    return requirePermittedMember(this.deps.members, tenantId, memberId, scope);
  }

  /**
   * Records the hold's outcome this request learnt, with the answer it will give: a posted hold
   * and its 201 in one statement; a refusal (the case fails) and its remembered 422 together.
   * Either may have been recorded first by the event path; the case as recorded is returned.
   */
  private async recordHold(scope: PayoutScope, created: StoredPayoutCase, outcome: HoldOutcome, answers: PayoutAnswers): Promise<StoredPayoutCase> {
    if (outcome.status === 'held') {
      const held: StoredPayoutCase = { ...created, holdEntryId: outcome.journalEntryId };
      const answer = answers.held(toPayoutCase(held));
      const stored = await recordHoldWithAnswer(this.deps.db, scope, created, outcome.journalEntryId, answer.statement);
      if (!stored) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      answer.answered();
      return held;
    }
    return this.deps.db.transaction(async (tx) => {
      await finishHolds(tx, [{ scope, id: created.id, outcome }]);
      const finished = await findCase(tx, scope, created.id);
      if (!finished) throw new Error(`payout case ${created.id} vanished while its hold was recorded`);
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
function pendingRecord(scope: PayoutScope, draft: NewPayoutCase, seq: string): StoredPayoutCase {
  return {
    ...draft,
    seq,
    tenantId: scope.tenantId,
    environment: scope.environment,
    status: 'pending',
    holdEntryId: null,
    failureCode: null,
    decidedBy: null,
    decidedAt: null,
    rejectionReason: null,
    decisionEntryId: null,
    decisionFailureCode: null,
    railReference: null,
    railFailureReason: null,
    outcomeEntryId: null,
    outcomeFailureCode: null,
  };
}

const REFUSAL_MESSAGES: Partial<Record<string, string>> = {
  INSUFFICIENT_FUNDS: 'The wallet does not hold the amount plus the fee',
  WALLET_FROZEN: 'The wallet is frozen',
};

/** The ledger's refusal of the hold as the error the client gets; the failed case is named in details. */
export function refusalOf(payout: StoredPayoutCase): AppError {
  const reported = payout.failureCode ?? 'VALIDATION_ERROR';
  const code: ErrorCode = reported in ERROR_STATUS ? (reported as ErrorCode) : 'VALIDATION_ERROR';
  return new AppError(code, REFUSAL_MESSAGES[code] ?? `The ledger refused the payout hold (${reported})`, { payoutCaseId: payout.id });
}

/** A delivered case (completed or failed by the rail, its hold posted) whose complete or fail the ledger has not answered. */
function awaitsOutcomeEntry(payout: StoredPayoutCase): boolean {
  const delivered = (payout.status === 'completed' || payout.status === 'failed') && payout.holdEntryId !== null;
  return delivered && payout.outcomeEntryId === null && payout.outcomeFailureCode === null;
}

export function toPayoutCase(payout: StoredPayoutCase): PayoutCase {
  return {
    id: payout.id,
    walletId: payout.walletId,
    amount: formatAmount(payout.amount, payout.currencyCode),
    currencyCode: payout.currencyCode,
    fee: formatAmount(payout.fee, payout.currencyCode),
    payoutMethod: payout.payoutMethod,
    destination: payout.destination,
    narration: payout.narration,
    requestedBy: payout.requestedBy,
    status: payout.status,
    holdJournalEntryId: payout.holdEntryId,
    failureCode: payout.failureCode,
    decidedBy: payout.decidedBy,
    decidedAt: payout.decidedAt ? payout.decidedAt.toISOString() : null,
    rejectionReason: payout.rejectionReason,
    decisionJournalEntryId: payout.decisionEntryId,
    railReference: payout.railReference,
    railFailureReason: payout.railFailureReason,
    outcomeJournalEntryId: payout.outcomeEntryId,
    awaitingLedger: awaitsLedger(payout) || awaitsOutcomeEntry(payout),
    createdAt: payout.createdAt.toISOString(),
  };
}
