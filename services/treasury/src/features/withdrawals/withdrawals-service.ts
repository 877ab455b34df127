import { type CreateWithdrawalBody, formatAmount, newId, type Page, type Withdrawal, type WithdrawalQuery } from '@wallet/contracts';
import { type AppError, currentContext, type InternalClaims, pageInOrder } from '@wallet/kit';
import {
  awaitsLedger,
  awaitsOutcomeEntry,
  caseDecisionView,
  type CaseDraft,
  type CaseTypeDeclaration,
  type CommandAnswers,
  type CommandResult,
  ledgerRefusal,
  MakerChecker,
  type MakerCheckerDeps,
  pendingCaseState,
  railOutcomeStep,
  UNDELIVERED,
} from '@wallet/money-commands';
import { withdrawalPostCommand } from './withdrawal-posting';
import {
  listWithdrawals,
  type NewWithdrawal,
  type StoredWithdrawal,
  type TreasuryScope,
  WITHDRAWAL,
  WITHDRAWAL_TABLE,
} from './withdrawals-store';

/**
 * Tenant withdrawals under maker-checker (MakerChecker): the hold at creation moves the amount
 * from the source into suspense; approval settles it into payout clearing, rejection releases
 * it back. The ledger decides whether the source holds the amount. After approval the rail
 * delivers, and its outcome is one more step (withdrawals-feature's delivery).
 */
export class WithdrawalsService extends MakerChecker<NewWithdrawal, StoredWithdrawal, Withdrawal> {
  constructor(deps: MakerCheckerDeps) {
    super(deps, WITHDRAWAL_CASES);
  }

  async create(
    scope: TreasuryScope,
    body: CreateWithdrawalBody,
    answers: CommandAnswers,
    claims: InternalClaims,
  ): Promise<CommandResult<Withdrawal>> {
    this.checkRequest(claims, body);
    await this.requireRequestAllowed(scope, body);
    const amount = formatAmount(body.amount, body.currencyCode);
    const id = newId('payoutCase');
    const draft: CaseDraft<NewWithdrawal> = {
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
    const hold = withdrawalPostCommand({ ...scope, ...draft, correlationId: currentContext()?.correlationId }, 'hold');
    return this.open({
      scope,
      claims,
      draft,
      hold,
      requested: { source: body.source, amount, currencyCode: body.currencyCode, payoutMethod: body.payoutMethod },
      answers,
    });
  }

  list(scope: TreasuryScope, query: WithdrawalQuery): Promise<Page<Withdrawal>> {
    return pageInOrder(query, (after) => listWithdrawals(this.deps.db, scope, { ...query, after }), toWithdrawal);
  }
}

/** Withdrawals as a maker-checker case type: after the decision, the rail's outcome is one more step. */
export const WITHDRAWAL_CASES: CaseTypeDeclaration<NewWithdrawal, StoredWithdrawal, Withdrawal> = {
  table: WITHDRAWAL_TABLE,
  names: WITHDRAWAL,
  noun: 'withdrawal',
  laterSteps: [railOutcomeStep(WITHDRAWAL.table)],
  scopes: { create: 'treasury:write', approve: 'treasury:approve' },
  created: (scope, draft, seq) => ({ ...draft, ...pendingCaseState(scope, seq), ...UNDELIVERED }),
  refusalOf,
  show: toWithdrawal,
  decisionCommand: (_tx, decided, step, correlationId) => Promise.resolve(withdrawalPostCommand({ ...decided, correlationId }, step)),
};

/** The ledger's refusal of the hold as the error the client gets; the failed case is named in details. */
export function refusalOf(withdrawal: StoredWithdrawal): AppError {
  const messages = {
    INSUFFICIENT_FUNDS: `The ${withdrawal.source === 'tenant_fees' ? 'fee revenue' : 'operating float'} does not hold the amount`,
  };
  return ledgerRefusal(withdrawal.failureCode, messages, (reported) => `The ledger refused the withdrawal hold (${reported})`, {
    withdrawalId: withdrawal.id,
  });
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
    ...caseDecisionView(withdrawal),
    status: withdrawal.status,
    railReference: withdrawal.railReference,
    railFailureReason: withdrawal.railFailureReason,
    outcomeJournalEntryId: withdrawal.outcomeEntryId,
    awaitingLedger: awaitsLedger(withdrawal) || awaitsOutcomeEntry(withdrawal),
    createdAt: withdrawal.createdAt.toISOString(),
  };
}
