import { type ApproveWithdrawalBody, checkAmount, type CreateWithdrawalBody, formatAmount, type LedgerResultV1, newId, type Page, type RejectWithdrawalBody, type Withdrawal, type WithdrawalQuery } from '@wallet/contracts';
import { AppError, auditActorFieldsOf, auditRecordMessage, currentContext, enqueueOutbox, type InternalClaims, pageBySeq, requireWithinTransactionLimit, type TenantDirectory, type Tx } from '@wallet/kit';
import { answerDecision, awaitsLedger, caseHoldReads, checkDeclaredActor, type CommandAnswers, type CommandResult, commitAndAwait, type DecisionAnswers, type DecisionResult, finishSteps, type LedgerWait, ledgerRefusal, type MemberDirectory, MoneyCommand, type MoneyCommandDeclaration, type MoneyCommandDeps, postingMessage, recordDecisionWithAnswer, requirePermittedMember, resultsOfSteps, scopedOutcomesOf, undecidableCaseError } from '@wallet/money-commands';
import { stepOfCommand, withdrawalCommandId, withdrawalPostCommand } from './withdrawal-posting';
import { type Decision, decideWithdrawal, findWithdrawal, listWithdrawals, type NewWithdrawal, type StoredWithdrawal, type TreasuryScope, WITHDRAWAL_DECISION, WITHDRAWAL_HOLD, WITHDRAWAL_RECORDS } from './withdrawals-store';

/** `replyTimeoutMs` bounds the wait of a creation's hold and of a decision's settle or release alike. */
export type WithdrawalsDeps = LedgerWait &
  MoneyCommandDeps & {
    members: Pick<MemberDirectory, 'memberOf'>;
    tenants: Pick<TenantDirectory, 'require'>;
  };

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

/**
 * Tenant withdrawals under maker-checker, the same way as wallet payouts. Each step (hold at
 * creation, settle on approval, release on rejection) commits with its posting command through
 * the outbox, under its own command id, so a step posts once whatever is retried. The ledger
 * decides whether the source holds the amount; a decision is only taken on a case whose hold
 * the ledger posted. Creation and decision alike wait for the ledger's answer to their step up
 * to the same deadline.
 */
export class WithdrawalsService {
  private readonly hold: MoneyCommand<NewWithdrawal, StoredWithdrawal, Withdrawal>;

  constructor(private readonly deps: WithdrawalsDeps) {
    this.hold = new MoneyCommand(deps, WITHDRAWAL_HOLD_COMMAND);
  }

  async create(scope: TreasuryScope, claims: InternalClaims, body: CreateWithdrawalBody, answers: CommandAnswers): Promise<CommandResult<Withdrawal>> {
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
    return this.hold.run({ scope, draft, command, alsoSent: [audit], answers });
  }

  approve(scope: TreasuryScope, claims: InternalClaims, id: string, body: ApproveWithdrawalBody, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    return this.decide(scope, claims, id, { status: 'approved', decidedBy: body.actorId, rejectionReason: null }, answers);
  }

  reject(scope: TreasuryScope, claims: InternalClaims, id: string, body: RejectWithdrawalBody, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    return this.decide(scope, claims, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason }, answers);
  }

  /** Finishes case steps from ledger events (any instance, any time); a step recorded already is left as it is. */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    await this.hold.finishFromEvents(tx, resultsOfSteps(results, stepOfCommand, 'hold'));
    await finishSteps(tx, WITHDRAWAL_DECISION, scopedOutcomesOf(resultsOfSteps(results, stepOfCommand, 'settle', 'release')));
  }

  async get(scope: TreasuryScope, id: string): Promise<Withdrawal> {
    const withdrawal = await findWithdrawal(this.deps.db, scope, id);
    if (!withdrawal) throw notFound();
    return toWithdrawal(withdrawal);
  }

  list(scope: TreasuryScope, query: WithdrawalQuery): Promise<Page<Withdrawal>> {
    return pageBySeq(query, (beforeSeq) => listWithdrawals(this.deps.db, scope, { status: query.status, beforeSeq, limit: query.limit }), toWithdrawal);
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
        recordPosted: (journalEntryId, answer) => recordDecisionWithAnswer(this.deps.db, WITHDRAWAL_DECISION.table, decided, journalEntryId, answer),
        recordRefused: async (failureCode) => {
          await finishSteps(this.deps.db, WITHDRAWAL_DECISION, [{ scope, id, outcome: { status: 'refused', failureCode } }]);
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

}

/** A case's hold as a money command: the case is pending, its hold unconfirmed, until the ledger posts or refuses it. */
const WITHDRAWAL_HOLD_COMMAND: MoneyCommandDeclaration<NewWithdrawal, StoredWithdrawal, Withdrawal> = {
  recordType: 'withdrawal',
  records: WITHDRAWAL_RECORDS,
  keyWrite: 'held',
  step: WITHDRAWAL_HOLD,
  created: pendingRecord,
  ...caseHoldReads<StoredWithdrawal>(),
  refusalOf,
  find: findWithdrawal,
  show: toWithdrawal,
};

/** The record a case is from the moment it commits until the ledger answers its hold. */
function pendingRecord(scope: TreasuryScope, draft: NewWithdrawal, seq: string): StoredWithdrawal {
  return { ...draft, seq, tenantId: scope.tenantId, environment: scope.environment, status: 'pending', holdEntryId: null, failureCode: null, decidedBy: null, decidedAt: null, rejectionReason: null, decisionEntryId: null, decisionFailureCode: null };
}

/** The ledger's refusal of the hold as the error the client gets; the failed case is named in details. */
export function refusalOf(withdrawal: StoredWithdrawal): AppError {
  const messages = { INSUFFICIENT_FUNDS: `The ${withdrawal.source === 'tenant_fees' ? 'fee revenue' : 'operating float'} does not hold the amount` };
  return ledgerRefusal(withdrawal.failureCode, messages, (reported) => `The ledger refused the withdrawal hold (${reported})`, { withdrawalId: withdrawal.id });
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
