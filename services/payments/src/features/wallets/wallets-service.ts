import {
  type CreateWalletBody,
  formatAmount,
  newId,
  type Page,
  type StatementQuery,
  type Wallet,
  type WalletBalanceAt,
  type WalletQuery,
} from '@wallet/contracts';
import {
  AppError,
  type Db,
  enqueueOutbox,
  newPlatformEventMessage,
  type OutboxMessage,
  type OutboxRelay,
  pageInOrder,
  type Tx,
} from '@wallet/kit';
import type { LedgerReads, StatementLine } from '@wallet/money-commands';
import { ledgerCommandMessage, walletOpeningCommandId, walletStatusCommand } from '../ledger/ledger-commands';
import type { TenantDirectory } from '@wallet/kit';
import {
  findWallet,
  findWalletAcrossTenants,
  findWalletOfOwner,
  insertWallet,
  listWallets,
  type StoredWallet,
  type WalletScope,
} from './wallets-store';

export interface WalletsDeps {
  db: Db;
  relay: OutboxRelay;
  tenants: TenantDirectory;
  ledger: LedgerReads;
}

function notFound(): AppError {
  return new AppError('WALLET_NOT_FOUND', 'No such wallet');
}

/**
 * Wallets and their reads. Payments owns the wallet; the ledger owns its balance, which every
 * read asks the ledger for, so a posting the ledger has confirmed shows at once.
 */
export class WalletsService {
  constructor(private readonly deps: WalletsDeps) {}

  /**
   * The wallet row and the command opening its ledger account are written in one transaction:
   * the account is opened if and only if the wallet exists.
   */
  /** `alsoInTransaction` commits with the wallet (the idempotency key's remembered answer). */
  async create(scope: WalletScope, body: CreateWalletBody, alsoInTransaction?: (tx: Tx, wallet: Wallet) => Promise<void>): Promise<Wallet> {
    const tenant = await this.deps.tenants.require(scope.tenantId);
    if (!tenant.allowedCurrencies.includes(body.currencyCode)) {
      throw new AppError('CURRENCY_NOT_ALLOWED', `${body.currencyCode} is not one of the tenant's allowed currencies`, {
        currencyCode: body.currencyCode,
        allowedCurrencies: tenant.allowedCurrencies,
      });
    }
    const wallet = await this.deps.db.transaction(async (tx) => {
      const stored = await insertWallet(tx, scope, {
        id: newId('wallet'),
        ownerType: body.ownerType,
        ownerId: body.ownerId,
        currencyCode: body.currencyCode,
      });
      if (!stored) {
        // The conflicting wallet is committed (ON CONFLICT waited for it), so this statement sees it.
        const existing = await findWalletOfOwner(tx, scope, body);
        if (!existing) throw new Error('wallet creation conflicted with a wallet that cannot be found');
        throw new AppError('WALLET_EXISTS', `This ${body.ownerType} already has a ${body.currencyCode} wallet`, { walletId: existing.id });
      }
      await enqueueOutbox(tx, [
        ledgerCommandMessage(walletStatusCommand(stored, 'active', walletOpeningCommandId(stored.id))),
        walletEventMessage(stored, 'wallet.created'),
      ]);
      // Nothing can have been posted to an account nobody has heard of yet.
      const created = toWallet(stored, formatAmount(0, stored.currencyCode));
      await alsoInTransaction?.(tx, created);
      return created;
    });
    this.deps.relay.wake();
    return wallet;
  }

  async list(scope: WalletScope, query: WalletQuery): Promise<Page<Wallet>> {
    const page = await pageInOrder(
      query,
      (after) => listWallets(this.deps.db, scope, { ...query, after }),
      (wallet) => wallet,
    );
    return { data: await this.present(scope, page.data), nextCursor: page.nextCursor };
  }

  async get(scope: WalletScope, id: string): Promise<Wallet> {
    return this.presentOne(await this.require(scope, id));
  }

  /** The platform operator's read: any tenant's wallet, its balance read as its own tenant and environment. */
  async getAcrossTenants(id: string): Promise<Wallet> {
    const wallet = await findWalletAcrossTenants(this.deps.db, id);
    if (!wallet) throw notFound();
    return this.presentOne(wallet);
  }

  /** The wallet's statement, straight from the ledger; an account the ledger has not opened yet has no lines. */
  async entries(scope: WalletScope, id: string, query: StatementQuery): Promise<Page<StatementLine>> {
    const wallet = await this.require(scope, id);
    return (await this.deps.ledger.walletStatement(scope, wallet.id, query)) ?? { data: [], nextCursor: null };
  }

  /** The wallet's balance as of a moment, from the ledger; an account the ledger has not opened yet has no lines, so 0. */
  async balanceAt(scope: WalletScope, wallet: StoredWallet, at: string): Promise<WalletBalanceAt> {
    const found = await this.deps.ledger.walletBalanceAt(scope, wallet.id, at);
    return {
      walletId: wallet.id,
      currencyCode: wallet.currencyCode,
      balance: found?.balance ?? formatAmount(0, wallet.currencyCode),
      at,
      journalEntryId: found?.journalEntryId ?? null,
    };
  }

  async require(scope: WalletScope, id: string): Promise<StoredWallet> {
    const wallet = await findWallet(this.deps.db, scope, id);
    if (!wallet) throw notFound();
    return wallet;
  }

  async presentOne(wallet: StoredWallet): Promise<Wallet> {
    const [presented] = await this.present(wallet, [wallet]);
    if (!presented) throw new Error(`wallet ${wallet.id} was not presented`);
    return presented;
  }

  /** Wallets with their balances, read from the ledger in one call for the whole page. */
  private async present(scope: WalletScope, wallets: StoredWallet[]): Promise<Wallet[]> {
    const accounts = await this.deps.ledger.walletAccounts(
      scope,
      wallets.map((wallet) => wallet.id),
    );
    return wallets.map((wallet) => {
      const account = accounts.get(wallet.id);
      if (account && account.currencyCode !== wallet.currencyCode) {
        throw new Error(`wallet ${wallet.id} is in ${wallet.currencyCode} but its ledger account is in ${account.currencyCode}`);
      }
      // No account yet means no line yet: the balance is exactly zero, not a guess.
      return toWallet(wallet, account ? account.balance : formatAmount(0, wallet.currencyCode));
    });
  }
}

/**
 * A wallet as its events show it: as the API does, but for the balance, which every entry moves
 * and which the transaction announcing a creation or a freeze does not read (docs/events.md).
 */
export function walletEventObject(wallet: StoredWallet): Omit<Wallet, 'balance'> {
  const { balance: _balance, ...shown } = toWallet(wallet, '0');
  return shown;
}

/** The event of a wallet's creation or status change, enqueued in the transaction that records it. */
export function walletEventMessage(wallet: StoredWallet, type: 'wallet.created' | 'wallet.frozen' | 'wallet.unfrozen'): OutboxMessage {
  return newPlatformEventMessage(wallet, type, walletEventObject(wallet));
}

export function toWallet(wallet: StoredWallet, balance: string): Wallet {
  return {
    id: wallet.id,
    tenantId: wallet.tenantId,
    environment: wallet.environment,
    ownerType: wallet.ownerType,
    ownerId: wallet.ownerId,
    currencyCode: wallet.currencyCode,
    balance,
    status: wallet.status,
    createdAt: wallet.createdAt.toISOString(),
  };
}
