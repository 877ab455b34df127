import { type ApproveWithdrawalBody, checkAmount, type CreateWithdrawalBody, formatAmount, type LedgerResultV1, newId, type Page, type RejectWithdrawalBody, type Withdrawal, type WithdrawalQuery } from '@wallet/contracts';
import { AppError, currentContext, type InternalClaims, pageBySeq, requireWithinTransactionLimit, type TenantDirectory, type Tx } from '@wallet/kit';
import { awaitsLedger, type CaseTypeDeclaration, checkDeclaredActor, type CommandAnswers, type CommandResult, type DecisionAnswers, type DecisionResult, ledgerRefusal, MakerChecker, type MakerCheckerDeps, pendingCaseState } from '@wallet/money-commands';
import { stepOfCommand, withdrawalPostCommand } from './withdrawal-posting';
import { findWithdrawal, fromRow, listWithdrawals, type NewWithdrawal, type StoredWithdrawal, type TreasuryScope, WITHDRAWAL_COLUMNS, WITHDRAWAL_RECORDS } from './withdrawals-store';

/** `replyTimeoutMs` bounds the wait of a creation's hold and of a decision's settle or release alike. */
export type WithdrawalsDeps = MakerCheckerDeps & { tenants: Pick<TenantDirectory, 'require'> };

/**
 * Tenant withdrawals under maker-checker (MakerChecker): the hold at creation moves the amount
 * from the source into suspense; approval settles it into payout clearing, rejection releases
 * it back. The ledger decides whether the source holds the amount.
 */
export class WithdrawalsService {
  private readonly cases: MakerChecker<NewWithdrawal, StoredWithdrawal, Withdrawal>;

  constructor(private readonly deps: WithdrawalsDeps) {
    this.cases = new MakerChecker(deps, WITHDRAWAL_CASES);
  }

  async create(scope: TreasuryScope, claims: InternalClaims, body: CreateWithdrawalBody, answers: CommandAnswers): Promise<CommandResult<Withdrawal>> {
    checkDeclaredActor(claims, body.requestedBy, 'requestedBy');
    const problem = checkAmount(body.amount, body.currencyCode);
    if (problem) throw new AppError('INVALID_AMOUNT', `amount is not a valid ${body.currencyCode} amount (${problem})`, { field: 'amount', problem });
    requireWithinTransactionLimit(body.amount, (await this.deps.tenants.require(scope.tenantId)).maxTransactionAmount);
    await this.cases.requireMaker(scope, body.requestedBy);
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
    const hold = withdrawalPostCommand({ ...scope, id, source: body.source, currencyCode: body.currencyCode, amount, correlationId: currentContext()?.correlationId }, 'hold');
    return this.cases.open({ scope, claims, draft, hold, requested: { source: body.source, amount, currencyCode: body.currencyCode, payoutMethod: body.payoutMethod }, answers });
  }

  approve(scope: TreasuryScope, claims: InternalClaims, id: string, body: ApproveWithdrawalBody, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    return this.cases.approve(scope, claims, id, body, answers);
  }

  reject(scope: TreasuryScope, claims: InternalClaims, id: string, body: RejectWithdrawalBody, answers: DecisionAnswers<Withdrawal>): Promise<DecisionResult<Withdrawal>> {
    return this.cases.reject(scope, claims, id, body, answers);
  }

  finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    return this.cases.finishFromEvents(tx, results);
  }

  get(scope: TreasuryScope, id: string): Promise<Withdrawal> {
    return this.cases.get(scope, id);
  }

  list(scope: TreasuryScope, query: WithdrawalQuery): Promise<Page<Withdrawal>> {
    return pageBySeq(query, (beforeSeq) => listWithdrawals(this.deps.db, scope, { status: query.status, beforeSeq, limit: query.limit }), toWithdrawal);
  }
}

/** Withdrawals as a maker-checker case type. */
const WITHDRAWAL_CASES: CaseTypeDeclaration<NewWithdrawal, StoredWithdrawal, Withdrawal> = {
  recordType: 'withdrawal',
  noun: 'withdrawal',
  audit: { targetType: 'withdrawal', actionPrefix: 'withdrawal' },
  scopes: { create: 'treasury:write', approve: 'treasury:approve' },
  records: WITHDRAWAL_RECORDS,
  columns: WITHDRAWAL_COLUMNS,
  fromRow,
  created: (scope, draft, seq) => ({ ...draft, ...pendingCaseState(scope, seq) }),
  find: findWithdrawal,
  refusalOf,
  show: toWithdrawal,
  decisionCommand: (_tx, decided, step, correlationId) => Promise.resolve(withdrawalPostCommand({ ...decided, correlationId }, step)),
  stepOfCommand,
};

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
