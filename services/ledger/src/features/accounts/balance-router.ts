import { type AccountBalanceAt, balanceAtQuerySchema, formatAmount, type LedgerAccount } from '@wallet/contracts';
import { AppError, type Db, parseOrThrow, requireSystem, tenantScopeOf } from '@wallet/kit';
import { type Request, Router } from 'express';
import type { LedgerShards } from '../partitions/ledger-shards';
import { findAccountAcrossTenants, findWalletAccount } from './accounts-store';
import { lineAt } from './balance-at-store';

/** The moment is judged after the account is found, as payments does for a wallet: an account the caller cannot see is 404 whatever the query. */
function momentOf(request: Request): string {
  return parseOrThrow(balanceAtQuerySchema, request.query, 'query').at;
}

async function balanceAt(db: Db, account: LedgerAccount, at: string): Promise<AccountBalanceAt> {
  const line = await lineAt(db, account.id, at);
  return {
    accountId: account.id,
    currencyCode: account.currencyCode,
    balance: formatAmount(line?.balanceAfter ?? 0, account.currencyCode),
    at,
    journalEntryId: line?.journalEntryId ?? null,
  };
}

/** Balances as of a moment: a wallet's within the caller's tenant and environment (payments asks), any account's for the platform operator. */
export function balanceAtRouter(shards: LedgerShards): Router {
  const router = Router();

  router.get('/v1/ledger/wallets/:walletId/balance', async (request, response) => {
    const scope = tenantScopeOf(response);
    const db = await shards.dbOfTenant(scope.tenantId);
    const account = await findWalletAccount(db, scope, request.params.walletId);
    if (!account) throw new AppError('WALLET_NOT_FOUND', 'No such wallet');
    response.json(await balanceAt(db, account, momentOf(request)));
  });

  router.get('/v1/system/ledger/accounts/:accountId/balance', async (request, response) => {
    requireSystem(response);
    const found = await shards.each(async (db) => ({ db, account: await findAccountAcrossTenants(db, request.params.accountId) }));
    const { db, account } = found.find((each) => each.account !== null) ?? { db: shards.home.db, account: null };
    if (!account) throw new AppError('ACCOUNT_NOT_FOUND', 'No such ledger account');
    response.json(await balanceAt(db, account, momentOf(request)));
  });

  return router;
}
