import BigNumber from 'bignumber.js';
import { type CreateTransferReversalBody, formatAmount, newId, type Page, type PageQuery, type TransferReversal } from '@wallet/contracts';
import { AppError, currentContext, type Db, pageBySeq } from '@wallet/kit';
import {
  type CommandAnswers,
  type CommandResult,
  ledgerRefusal,
  MoneyCommand,
  type MoneyCommandDeps,
  settledMoneyCommand,
} from '@wallet/money-commands';
import { reversalPostCommand } from './transfer-reversal-posting';
import {
  findReversal,
  findReversibleTransfer,
  listReversals,
  type NewReversal,
  REVERSAL_POSTING,
  REVERSAL_RECORDS,
  type ReversibleTransfer,
  type StoredReversal,
  TRANSFER_REVERSAL,
} from './transfer-reversals-store';
import type { TransferScope } from './transfers-store';

/**
 * Reversals of completed transfers, as money commands: the reversal, its claim on the transfer
 * (its amount out of what is not reversed yet, the fee at most once) and its posting commit in
 * one statement; the ledger's refusal (the receiver spent the money) fails it and gives the
 * claim back. What is checked before the statement is checked again by the claim.
 */
export class TransferReversals extends MoneyCommand<NewReversal, StoredReversal, TransferReversal> {
  constructor(deps: MoneyCommandDeps) {
    super(deps, REVERSAL_COMMAND);
  }

  async create(
    scope: TransferScope,
    transferId: string,
    body: CreateTransferReversalBody,
    answers: CommandAnswers,
  ): Promise<CommandResult<TransferReversal>> {
    const transfer = await findReversibleTransfer(this.deps.db, scope, transferId);
    const reversible = requireReversible(transfer, transferId);
    const currency = reversible.currencyCode;
    if (body.amount !== undefined) this.checkAmount({ amount: body.amount, currencyCode: currency });
    const amount = formatAmount(body.amount ?? new BigNumber(reversible.amount).minus(reversible.reversedAmount), currency);
    const refund =
      body.refundFee === true
        ? { feeRefunded: reversible.fee, commissionRefunded: reversible.commission }
        : { feeRefunded: '0', commissionRefunded: '0' };
    const draft: NewReversal = {
      id: newId('transferReversal'),
      transferId,
      currencyCode: currency,
      amount,
      ...refund,
      reason: body.reason,
      createdAt: new Date(),
    };
    const refused = claimProblem(reversible, draft);
    if (refused) throw refused;
    const posting = { ...scope, ...draft, correlationId: currentContext()?.correlationId };
    const command = reversalPostCommand(posting, {
      journalEntryId: reversible.journalEntryId as string,
      from: reversible.from,
      to: reversible.to,
    });
    return this.run({ scope, draft, command, answers });
  }

  async list(scope: TransferScope, transferId: string, query: PageQuery): Promise<Page<TransferReversal>> {
    if (!(await findReversibleTransfer(this.deps.db, scope, transferId))) throw new AppError('TRANSFER_NOT_FOUND', 'No such transfer');
    return pageBySeq(query, (beforeSeq) => listReversals(this.deps.db, scope, transferId, { beforeSeq, limit: query.limit }), toReversal);
  }
}

/** Only a completed transfer of the caller's scope is reversed. */
function requireReversible(transfer: ReversibleTransfer | null, transferId: string): ReversibleTransfer {
  if (!transfer) throw new AppError('TRANSFER_NOT_FOUND', 'No such transfer');
  if (transfer.status !== 'completed' || transfer.journalEntryId === null)
    throw new AppError('TRANSFER_NOT_REVERSIBLE', `Only a completed transfer is reversed; this one is ${transfer.status}`, {
      transferId,
      status: transfer.status,
    });
  return transfer;
}

/** Why the transfer as read cannot give what the reversal claims; null when it can. */
function claimProblem(transfer: ReversibleTransfer, draft: NewReversal): AppError | null {
  const reversible = new BigNumber(transfer.amount).minus(transfer.reversedAmount);
  if (new BigNumber(draft.amount).gt(reversible) || reversible.isZero()) {
    return new AppError('REVERSAL_EXCEEDS_TRANSFER', "The transfer's reversals would pass its amount", {
      transferId: transfer.id,
      reversible: formatAmount(reversible, transfer.currencyCode),
    });
  }
  if (new BigNumber(draft.feeRefunded).gt(0) && new BigNumber(transfer.refundedFee).gt(0))
    return new AppError('FEE_ALREADY_REFUNDED', "The transfer's fee was refunded already", { transferId: transfer.id });
  return null;
}

/** After the claim did not hold: the transfer as it is now says why (another reversal took what was left, mostly). */
async function claimRefused(db: Db, scope: TransferScope, draft: NewReversal): Promise<AppError> {
  const transfer = requireReversible(await findReversibleTransfer(db, scope, draft.transferId), draft.transferId);
  return (
    claimProblem(transfer, draft) ??
    new AppError('REVERSAL_EXCEEDS_TRANSFER', "The transfer's reversals would pass its amount", {
      transferId: transfer.id,
      reversible: formatAmount(new BigNumber(transfer.amount).minus(transfer.reversedAmount), transfer.currencyCode),
    })
  );
}

function refusalOf(reversal: StoredReversal): AppError {
  const messages = {
    INSUFFICIENT_FUNDS: "The receiver's wallet no longer holds the amount",
    WALLET_FROZEN: "The receiver's wallet is frozen",
  };
  return ledgerRefusal(reversal.failureCode, messages, (reported) => `The ledger refused the reversal (${reported})`, {
    reversalId: reversal.id,
    transferId: reversal.transferId,
  });
}

export const REVERSAL_COMMAND = settledMoneyCommand<NewReversal, StoredReversal, TransferReversal>({
  recordType: TRANSFER_REVERSAL.type,
  // What is left of the transfer caps a reversal (claimProblem), not the tenant's ceiling: the transfer was within it.
  amount: { limit: 'none' },
  approval: 'none',
  records: REVERSAL_RECORDS,
  keyWrite: 'first-write',
  step: REVERSAL_POSTING,
  refusalOf,
  claimRefused,
  find: findReversal,
  show: toReversal,
  // A refused reversal changes nothing of the transfer: no event.
  announces: { posted: 'transfer.reversed' },
  notFound: () => new AppError('NOT_FOUND', 'No such reversal'),
});

export function toReversal(reversal: StoredReversal): TransferReversal {
  const currency = reversal.currencyCode;
  return {
    id: reversal.id,
    transferId: reversal.transferId,
    amount: formatAmount(reversal.amount, currency),
    currencyCode: currency,
    feeRefunded: formatAmount(reversal.feeRefunded, currency),
    reason: reversal.reason,
    status: reversal.status,
    journalEntryId: reversal.journalEntryId,
    failureCode: reversal.failureCode,
    ...(reversal.status === 'pending' ? { awaitingLedger: true as const } : {}),
    createdAt: reversal.createdAt.toISOString(),
  };
}
