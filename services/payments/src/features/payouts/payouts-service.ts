import { type CreatePayoutBody, formatAmount, newId, type Page, type PayoutCase, type PayoutCaseQuery } from '@wallet/contracts';
import { AppError, currentContext, type InternalClaims, pageInOrder } from '@wallet/kit';
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
import { chargedFee, quoteFee } from '../fees/quote-fee';
import { payoutPostCommand } from './payout-posting';
import {
  findPayoutWallet,
  listCases,
  type NewPayoutCase,
  PAYOUT,
  PAYOUT_CASE_TABLE,
  type PayoutScope,
  type StoredPayoutCase,
} from './payouts-store';

/**
 * Wallet payouts under maker-checker (MakerChecker): the hold at creation moves amount plus fee
 * from the wallet into suspense; approval settles it into payout clearing (the fee earned),
 * rejection releases it back. The ledger decides whether the hold fits the wallet (funds,
 * freeze). After approval the rail delivers, and its outcome is one more step (payout-delivery).
 */
export class PayoutsService extends MakerChecker<NewPayoutCase, StoredPayoutCase, PayoutCase> {
  constructor(deps: MakerCheckerDeps) {
    super(deps, PAYOUT_CASES);
  }

  async create(
    scope: PayoutScope,
    body: CreatePayoutBody,
    answers: CommandAnswers,
    claims: InternalClaims,
  ): Promise<CommandResult<PayoutCase>> {
    this.checkRequest(claims, body);
    const wallet = await findPayoutWallet(this.deps.db, scope, body.walletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND', 'No such wallet', { walletId: body.walletId });
    if (wallet.currencyCode !== body.currencyCode) {
      throw new AppError('CURRENCY_MISMATCH', `Wallet ${wallet.id} holds ${wallet.currencyCode}, not ${body.currencyCode}`, {
        walletId: wallet.id,
        walletCurrencyCode: wallet.currencyCode,
        currencyCode: body.currencyCode,
      });
    }
    // Payments' copy of the status only refuses early; the ledger enforces a freeze atomically.
    if (wallet.status === 'frozen') throw new AppError('WALLET_FROZEN', 'The wallet is frozen', { walletId: wallet.id });
    await this.requireRequestAllowed(scope, body);
    const amount = formatAmount(body.amount, body.currencyCode);
    const quote = await quoteFee(this.deps.db, scope.tenantId, 'payout', body.currencyCode, amount);

    const id = newId('payoutCase');
    const draft: CaseDraft<NewPayoutCase> = {
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
    const hold = payoutPostCommand(
      {
        ...scope,
        id,
        walletId: wallet.id,
        walletOwnerId: wallet.ownerId,
        currencyCode: body.currencyCode,
        amount,
        fee: quote.fee,
        commission: quote.commission,
        correlationId: currentContext()?.correlationId,
      },
      'hold',
    );
    return this.open({
      scope,
      claims,
      draft,
      hold,
      requested: { walletId: wallet.id, amount, fee: quote.fee, currencyCode: body.currencyCode, payoutMethod: body.payoutMethod },
      answers,
    });
  }

  list(scope: PayoutScope, query: PayoutCaseQuery): Promise<Page<PayoutCase>> {
    return pageInOrder(query, (after) => listCases(this.deps.db, scope, { ...query, after }), toPayoutCase);
  }
}

/** Payouts as a maker-checker case type: after the decision, the rail's outcome is one more step (payout-delivery). */
export const PAYOUT_CASES: CaseTypeDeclaration<NewPayoutCase, StoredPayoutCase, PayoutCase> = {
  table: PAYOUT_CASE_TABLE,
  names: PAYOUT,
  noun: 'payout case',
  laterSteps: [railOutcomeStep(PAYOUT.table)],
  scopes: { create: 'payouts:create', approve: 'payouts:approve' },
  created: (scope, draft, seq) => ({
    ...draft,
    ...pendingCaseState(scope, seq),
    ...UNDELIVERED,
  }),
  refusalOf,
  show: toPayoutCase,
  decisionCommand: async (tx, decided, step, correlationId) => {
    // The wallet's owner names its ledger account, which a release credits.
    const wallet = await findPayoutWallet(tx, decided, decided.walletId);
    if (!wallet) throw new Error(`payout case ${decided.id}: its wallet ${decided.walletId} is gone`);
    return payoutPostCommand({ ...decided, walletOwnerId: wallet.ownerId, correlationId }, step);
  },
};

/** The ledger's refusal of the hold as the error the client gets; the failed case is named in details. */
export function refusalOf(payout: StoredPayoutCase): AppError {
  const messages = { INSUFFICIENT_FUNDS: 'The wallet does not hold the amount plus the fee', WALLET_FROZEN: 'The wallet is frozen' };
  return ledgerRefusal(payout.failureCode, messages, (reported) => `The ledger refused the payout hold (${reported})`, {
    payoutCaseId: payout.id,
  });
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
    ...caseDecisionView(payout),
    status: payout.status,
    railReference: payout.railReference,
    railFailureReason: payout.railFailureReason,
    outcomeJournalEntryId: payout.outcomeEntryId,
    awaitingLedger: awaitsLedger(payout) || awaitsOutcomeEntry(payout),
    createdAt: payout.createdAt.toISOString(),
  };
}
