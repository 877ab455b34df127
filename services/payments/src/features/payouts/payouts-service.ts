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
import { AppError, auditActorFieldsOf, auditRecordMessage, currentContext, type Db, decodeCursor, encodeCursor, enqueueOutbox, IdempotencyInProgressError, type InternalClaims, type MemberDirectory, type OutboxRelay, postingMessage, type Postings, requirePermittedMember, requireWithinTransactionLimit, type SqlStatement, type TenantDirectory, type Tx } from '@wallet/kit';
import { z } from 'zod';
import { quoteFee } from '../fees/quote-fee';
import { payoutCommandId, payoutPostCommand, stepOfCommand } from './payout-posting';
import {
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

export interface PayoutsDeps {
  db: Db;
  relay: OutboxRelay;
  postings: Pick<Postings, 'replyTo' | 'expect'>;
  members: Pick<MemberDirectory, 'memberOf'>;
  tenants: Pick<TenantDirectory, 'require'>;
  /** How long a request waits for the ledger's answer to the hold before answering 202 pending. */
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

/** Stores the decision's answer in the decision's transaction, when a key guards the call. */
export type DecisionAnswer = (tx: Tx, payout: PayoutCase) => Promise<void>;

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No such payout case');
}

/** api-decisions section 3: a body actor must equal the actor the caller declared (header or session). */
function checkDeclaredActor(claims: InternalClaims, bodyActorId: string, field: 'requestedBy' | 'actorId'): void {
  if (claims.actor && claims.actor.id !== bodyActorId) {
    throw new AppError('ACTOR_MISMATCH', `${field} differs from the actor of the request`, { field });
  }
}

/**
 * Wallet payouts under maker-checker. Each step (hold at creation, settle on approval, release
 * on rejection) commits with its posting command through the outbox, under its own command id,
 * so a step posts once whatever is retried. The ledger decides whether the hold fits the wallet
 * (funds, freeze); a decision is only taken on a case whose hold the ledger posted.
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
    // Waiting starts before the commit: the ledger may answer before this resumes.
    const pending = this.deps.postings.expect(payoutCommandId(id, 'hold'), this.deps.replyTimeoutMs);
    let created: StoredPayoutCase;
    try {
      const seq = await insertCaseWithHold(this.deps.db, scope, draft, { answer: answers.pending(pendingCase), command: postingMessage(command, { replyTo: this.deps.postings.replyTo }) });
      if (seq === null) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      created = pendingRecord(scope, draft, seq);
    } catch (error) {
      pending.cancel();
      throw error;
    }
    this.deps.relay.wake();

    const result = await pending.result;
    const outcome = result ? holdOutcomeOf(result) : null;
    if (!outcome) return { status: 202, payout: pendingCase };
    const finished = await this.recordHold(scope, created, outcome, answers);
    if (finished.status === 'failed') throw refusalOf(finished);
    return { status: finished.holdEntryId ? 201 : 202, payout: toPayoutCase(finished) };
  }

  approve(scope: PayoutScope, claims: InternalClaims, id: string, body: ApprovePayoutBody, answer?: DecisionAnswer): Promise<PayoutCase> {
    return this.decide(scope, claims, id, { status: 'approved', decidedBy: body.actorId, rejectionReason: null }, answer);
  }

  reject(scope: PayoutScope, claims: InternalClaims, id: string, body: RejectPayoutBody, answer?: DecisionAnswer): Promise<PayoutCase> {
    return this.decide(scope, claims, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason }, answer);
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
        const outcome = decisionOutcomeOf(result);
        if (outcome) decisions.push({ scope, id: result.reference.id, outcome });
      } else if (step === 'complete' || step === 'fail') {
        const outcome = decisionOutcomeOf(result);
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
    const position = decodeCursor(query.cursor, { seq: z.string().regex(/^\d{1,19}$/) });
    const rows = await listCases(this.deps.db, scope, { walletId: query.walletId, status: query.status, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toPayoutCase), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  /**
   * The checker's step: who may take it is checked first (identity answers for the member now),
   * then the case moves out of pending with its posting command, its audit record and the key's
   * answer in one transaction, conditional on it still being pending.
   */
  private async decide(scope: PayoutScope, claims: InternalClaims, id: string, decision: { status: 'approved' | 'rejected'; decidedBy: string; rejectionReason: string | null }, answer?: DecisionAnswer): Promise<PayoutCase> {
    checkDeclaredActor(claims, decision.decidedBy, 'actorId');
    const current = await findCase(this.deps.db, scope, id);
    if (!current) throw notFound();
    if (current.requestedBy === decision.decidedBy) throw new AppError('SELF_APPROVAL_FORBIDDEN', 'The requester of a payout cannot decide it', { actorId: decision.decidedBy });
    await this.requireMember(scope.tenantId, decision.decidedBy, 'payouts:approve');

    const step = decision.status === 'approved' ? 'settle' : 'release';
    const actor = auditActorFieldsOf(claims);
    const decided = await this.deps.db.transaction(async (tx) => {
      const moved = await decideCase(tx, scope, id, decision);
      if (!moved) {
        const now = await findCase(tx, scope, id);
        if (!now) throw notFound();
        throw new AppError('CASE_NOT_PENDING', now.status === 'pending' ? 'The case waits for the ledger to confirm its hold; retry shortly' : `The case is ${now.status}, not pending`, {
          status: now.status,
          ...(now.status === 'pending' ? { holdConfirmed: false } : {}),
        });
      }
      const { payout, walletOwnerId } = moved;
      const command = payoutPostCommand({ ...scope, id, walletId: payout.walletId, walletOwnerId, currencyCode: payout.currencyCode, amount: payout.amount, fee: payout.fee, commission: payout.commission, correlationId: currentContext()?.correlationId }, step);
      await enqueueOutbox(tx, [
        postingMessage(command),
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
      const shown = toPayoutCase(payout);
      if (answer) await answer(tx, shown);
      return shown;
    });
    this.deps.relay.wake();
    return decided;
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

function decisionOutcomeOf(result: LedgerResultV1): DecisionOutcome | null {
  if (result.status === 'posted' && result.journalEntryId) return { status: 'posted', journalEntryId: result.journalEntryId };
  if (result.status === 'rejected') return { status: 'refused', failureCode: result.error?.code ?? 'VALIDATION_ERROR' };
  return null;
}

/** The record a case is from the moment it commits until the ledger answers its hold. */
function pendingRecord(scope: PayoutScope, draft: NewPayoutCase, seq: string): StoredPayoutCase {
  return { ...draft, seq, tenantId: scope.tenantId, environment: scope.environment, status: 'pending', holdEntryId: null, failureCode: null, decidedBy: null, decidedAt: null, rejectionReason: null, decisionEntryId: null, railReference: null, railFailureReason: null, outcomeEntryId: null };
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
    createdAt: payout.createdAt.toISOString(),
  };
}
