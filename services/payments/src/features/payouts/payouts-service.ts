import { type ApprovePayoutBody, checkAmount, type CreatePayoutBody, formatAmount, type LedgerResultV1, newId, type Page, type PayoutCase, type PayoutCaseQuery, type RejectPayoutBody } from '@wallet/contracts';
import { AppError, auditActorFieldsOf, auditRecordMessage, currentContext, enqueueOutbox, type InternalClaims, pageBySeq, requireWithinTransactionLimit, type TenantDirectory, type Tx } from '@wallet/kit';
import { answerDecision, awaitsLedger, caseHoldReads, checkDeclaredActor, type CommandAnswers, type CommandResult, commitAndAwait, type DecisionAnswers, type DecisionResult, finishSteps, type LedgerWait, ledgerRefusal, type MemberDirectory, MoneyCommand, type MoneyCommandDeclaration, type MoneyCommandDeps, postingMessage, recordDecisionWithAnswer, requirePermittedMember, resultsOfSteps, scopedOutcomesOf, undecidableCaseError } from '@wallet/money-commands';
import { chargedFee, quoteFee } from '../fees/quote-fee';
import { payoutCommandId, payoutPostCommand, stepOfCommand } from './payout-posting';
import { type Decision, decideCase, findCase, findPayoutWallet, listCases, type NewPayoutCase, PAYOUT_CASE_RECORDS, PAYOUT_DECISION, PAYOUT_HOLD, PAYOUT_OUTCOME, type PayoutScope, type StoredPayoutCase } from './payouts-store';

/** `replyTimeoutMs` bounds the wait of a creation's hold and of a decision's settle or release alike. */
export type PayoutsDeps = LedgerWait &
  MoneyCommandDeps & {
    members: Pick<MemberDirectory, 'memberOf'>;
    tenants: Pick<TenantDirectory, 'require'>;
  };

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

/**
 * Wallet payouts under maker-checker. Each step (hold at creation, settle on approval, release
 * on rejection) commits with its posting command through the outbox, under its own command id,
 * so a step posts once whatever is retried. The ledger decides whether the hold fits the wallet
 * (funds, freeze); a decision is only taken on a case whose hold the ledger posted. Creation and
 * decision alike wait for the ledger's answer to their step up to the same deadline.
 */
export class PayoutsService {
  private readonly hold: MoneyCommand<NewPayoutCase, StoredPayoutCase, PayoutCase>;

  constructor(private readonly deps: PayoutsDeps) {
    this.hold = new MoneyCommand(deps, PAYOUT_HOLD_COMMAND);
  }

  async create(scope: PayoutScope, claims: InternalClaims, body: CreatePayoutBody, answers: CommandAnswers): Promise<CommandResult<PayoutCase>> {
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
      ...chargedFee(quote),
      payoutMethod: body.payoutMethod,
      destination: body.destination,
      narration: body.narration ?? null,
      requestedBy: body.requestedBy,
      createdAt: new Date(),
    };
    const command = payoutPostCommand({ ...scope, id, walletId: wallet.id, walletOwnerId: wallet.ownerId, currencyCode: body.currencyCode, amount, fee: quote.fee, commission: quote.commission, correlationId: currentContext()?.correlationId }, 'hold');
    return this.hold.run({ scope, draft, command, answers });
  }

  approve(scope: PayoutScope, claims: InternalClaims, id: string, body: ApprovePayoutBody, answers: DecisionAnswers<PayoutCase>): Promise<DecisionResult<PayoutCase>> {
    return this.decide(scope, claims, id, { status: 'approved', decidedBy: body.actorId, rejectionReason: null }, answers);
  }

  reject(scope: PayoutScope, claims: InternalClaims, id: string, body: RejectPayoutBody, answers: DecisionAnswers<PayoutCase>): Promise<DecisionResult<PayoutCase>> {
    return this.decide(scope, claims, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason }, answers);
  }

  /** Finishes case steps from ledger events (any instance, any time); a step recorded already is left as it is. */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    await this.hold.finishFromEvents(tx, resultsOfSteps(results, stepOfCommand, 'hold'));
    await finishSteps(tx, PAYOUT_DECISION, scopedOutcomesOf(resultsOfSteps(results, stepOfCommand, 'settle', 'release')));
    await finishSteps(tx, PAYOUT_OUTCOME, scopedOutcomesOf(resultsOfSteps(results, stepOfCommand, 'complete', 'fail')));
  }

  async get(scope: PayoutScope, id: string): Promise<PayoutCase> {
    const payout = await findCase(this.deps.db, scope, id);
    if (!payout) throw notFound();
    return toPayoutCase(payout);
  }

  list(scope: PayoutScope, query: PayoutCaseQuery): Promise<Page<PayoutCase>> {
    return pageBySeq(query, (beforeSeq) => listCases(this.deps.db, scope, { walletId: query.walletId, status: query.status, beforeSeq, limit: query.limit }), toPayoutCase);
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
        recordPosted: (journalEntryId, answer) => recordDecisionWithAnswer(this.deps.db, PAYOUT_DECISION.table, decided, journalEntryId, answer),
        recordRefused: async (failureCode) => {
          await finishSteps(this.deps.db, PAYOUT_DECISION, [{ scope, id, outcome: { status: 'refused', failureCode } }]);
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

}

/** A case's hold as a money command: the case is pending, its hold unconfirmed, until the ledger posts or refuses it. */
const PAYOUT_HOLD_COMMAND: MoneyCommandDeclaration<NewPayoutCase, StoredPayoutCase, PayoutCase> = {
  recordType: 'payout',
  records: PAYOUT_CASE_RECORDS,
  keyWrite: 'held',
  step: PAYOUT_HOLD,
  created: pendingRecord,
  ...caseHoldReads<StoredPayoutCase>(),
  refusalOf,
  find: findCase,
  show: toPayoutCase,
};

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

/** The ledger's refusal of the hold as the error the client gets; the failed case is named in details. */
export function refusalOf(payout: StoredPayoutCase): AppError {
  const messages = { INSUFFICIENT_FUNDS: 'The wallet does not hold the amount plus the fee', WALLET_FROZEN: 'The wallet is frozen' };
  return ledgerRefusal(payout.failureCode, messages, (reported) => `The ledger refused the payout hold (${reported})`, { payoutCaseId: payout.id });
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
