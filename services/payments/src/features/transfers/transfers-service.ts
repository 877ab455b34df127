import { type CreateTransferBody, formatAmount, newId, type Page, type Transfer, type TransferQuery } from '@wallet/contracts';
import { AppError, currentContext, type Db, microBatch, pageInOrder, STATEMENT_BATCH_CONCURRENCY, type TenantDirectory } from '@wallet/kit';
import {
  type CommandAnswers,
  type CommandResult,
  ledgerRefusal,
  MoneyCommand,
  type MoneyCommandDeps,
  settledMoneyCommand,
} from '@wallet/money-commands';
import { chargedFee, quoteFromTerms } from '../fees/quote-fee';
import { transferPostCommand } from './transfer-posting';
import {
  findTransfer,
  findTransfers,
  findTransferContext,
  listTransfers,
  type NewTransfer,
  type StoredTransfer,
  TRANSFER,
  TRANSFER_POSTING,
  TRANSFER_RECORDS,
  type TransferContext,
  type TransferScope,
} from './transfers-store';

export interface TransfersDeps extends MoneyCommandDeps {
  tenants: Pick<TenantDirectory, 'require'>;
}

function walletNotFound(walletId: string): AppError {
  return new AppError('WALLET_NOT_FOUND', 'No such wallet', { walletId });
}

/**
 * Transfers between two wallets of a tenant's environment. The transfer row, its posting
 * command (through the outbox) and the idempotency key's pending answer commit in one
 * statement; the ledger decides (balances, freezes) and its answer finishes the row exactly
 * once, from the reply this request waits for or from the ledger's event.
 */
export class TransfersService extends MoneyCommand<NewTransfer, StoredTransfer, Transfer> {
  /** Transfers created in one event-loop turn read their context together, one statement per tenant, environment and currency. */
  private readonly readContext: (ask: ContextRead) => Promise<TransferContext>;

  constructor(deps: TransfersDeps) {
    super(deps, TRANSFER_COMMAND);
    this.readContext = microBatch((asks: ContextRead[]) => readContexts(deps.db, asks), {
      concurrency: STATEMENT_BATCH_CONCURRENCY,
    });
  }

  async create(scope: TransferScope, body: CreateTransferBody, answers: CommandAnswers): Promise<CommandResult<Transfer>> {
    if (body.fromWalletId === body.toWalletId)
      throw new AppError('SAME_WALLET', 'A transfer needs two different wallets', { walletId: body.fromWalletId });
    this.checkAmount(body);

    // Read outside any transaction, in one round trip: a wallet's currency never changes,
    // payments' copy of its status only refuses early (the ledger enforces a freeze atomically
    // either way), and the fee and the ceiling are whatever the tenant's configuration says at
    // this moment.
    const { wallets, terms, maxTransactionAmount } = await this.readContext({
      scope,
      walletIds: [body.fromWalletId, body.toWalletId],
      currencyCode: body.currencyCode,
    });
    const from = wallets.get(body.fromWalletId);
    const to = wallets.get(body.toWalletId);
    if (!from) throw walletNotFound(body.fromWalletId);
    if (!to) throw walletNotFound(body.toWalletId);
    for (const wallet of [from, to]) {
      if (wallet.currencyCode !== body.currencyCode) {
        throw new AppError('CURRENCY_MISMATCH', `Wallet ${wallet.id} holds ${wallet.currencyCode}, not ${body.currencyCode}`, {
          walletId: wallet.id,
          walletCurrencyCode: wallet.currencyCode,
          currencyCode: body.currencyCode,
        });
      }
    }
    if (from.status === 'frozen') throw new AppError('WALLET_FROZEN', 'The sending wallet is frozen', { walletId: from.id });
    // The ceiling came with the context; only a tenant payments has not heard of costs a lookup.
    await this.checkLimit(scope.tenantId, body.amount, maxTransactionAmount);
    const amount = formatAmount(body.amount, body.currencyCode);
    const quote = quoteFromTerms(terms, 'transfer', body.currencyCode, amount);

    const id = newId('transfer');
    const draft: NewTransfer = {
      id,
      fromWalletId: from.id,
      toWalletId: to.id,
      currencyCode: body.currencyCode,
      amount,
      ...chargedFee(quote),
      description: body.description ?? null,
      createdAt: new Date(),
    };
    const command = transferPostCommand(
      {
        ...scope,
        id,
        currencyCode: body.currencyCode,
        amount,
        fee: quote.fee,
        commission: quote.commission,
        correlationId: currentContext()?.correlationId,
      },
      from,
      to,
    );
    return this.run({ scope, draft, command, answers });
  }

  list(scope: TransferScope, query: TransferQuery): Promise<Page<Transfer>> {
    return pageInOrder(query, (after) => listTransfers(this.deps.db, scope, { ...query, after }), toTransfer);
  }
}

interface ContextRead {
  scope: TransferScope;
  walletIds: readonly string[];
  currencyCode: string;
}

/**
 * The contexts of several transfers: those of one tenant, environment and currency share one
 * read of all their wallets and of the fee terms. Each caller picks its own two wallets from
 * its group's, all of its own scope.
 */
async function readContexts(db: Db, asks: readonly ContextRead[]): Promise<TransferContext[]> {
  const groups = new Map<string, { scope: TransferScope; currencyCode: string; walletIds: Set<string> }>();
  const groupKeys = asks.map((ask) => {
    const key = `${ask.scope.tenantId}\u0000${ask.scope.environment}\u0000${ask.currencyCode}`;
    const group = groups.get(key);
    if (group) for (const id of ask.walletIds) group.walletIds.add(id);
    else groups.set(key, { scope: ask.scope, currencyCode: ask.currencyCode, walletIds: new Set(ask.walletIds) });
    return key;
  });
  const contexts = new Map<string, TransferContext>();
  await Promise.all(
    [...groups].map(async ([key, group]) => {
      contexts.set(key, await findTransferContext(db, group.scope, [...group.walletIds], group.currencyCode));
    }),
  );
  return groupKeys.map((key) => contexts.get(key) as TransferContext);
}

/** The ledger's refusal as the error the client gets; the transfer, recorded as failed, is named in details. */
export function refusalOf(transfer: StoredTransfer): AppError {
  const messages = {
    INSUFFICIENT_FUNDS: 'The sending wallet does not hold the amount plus the fee',
    WALLET_FROZEN: 'The sending wallet is frozen',
  };
  return ledgerRefusal(transfer.failureCode, messages, (reported) => `The ledger refused the transfer (${reported})`, {
    transferId: transfer.id,
  });
}

/** Transfers as money commands: the transfer is pending until the ledger posts or refuses its posting. */
export const TRANSFER_COMMAND = settledMoneyCommand<NewTransfer, StoredTransfer, Transfer>({
  recordType: TRANSFER.type,
  approval: 'none',
  amount: { limit: 'tenant' },
  records: TRANSFER_RECORDS,
  step: TRANSFER_POSTING,
  keyWrite: 'first-write',
  find: findTransfer,
  findMany: findTransfers,
  show: toTransfer,
  announces: { posted: 'transfer.completed', refused: 'transfer.failed' },
  refusalOf,
  notFound: () => new AppError('TRANSFER_NOT_FOUND', 'No such transfer'),
});

export function toTransfer(transfer: StoredTransfer): Transfer {
  return {
    id: transfer.id,
    fromWalletId: transfer.fromWalletId,
    toWalletId: transfer.toWalletId,
    amount: formatAmount(transfer.amount, transfer.currencyCode),
    currencyCode: transfer.currencyCode,
    fee: formatAmount(transfer.fee, transfer.currencyCode),
    status: transfer.status,
    journalEntryId: transfer.journalEntryId,
    failureCode: transfer.failureCode,
    description: transfer.description,
    createdAt: transfer.createdAt.toISOString(),
  };
}
