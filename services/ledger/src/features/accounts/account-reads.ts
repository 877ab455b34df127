import type { LedgerAccount } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import type { TenantScope } from '../journal/journal-scope';
import * as store from './accounts-store';

export type { StatementLineRow } from './accounts-store';

/*
 * The accounts and their statements as the ledger's account routes show them, read through the
 * accounts feature's own store, which no other feature touches.
 */

/** A page of the scope's accounts, newest first; one more than `limit` when there is a next page. */
export function listAccounts(db: Db, scope: TenantScope, filter: Parameters<typeof store.listAccounts>[2]): Promise<LedgerAccount[]> {
  return store.listAccounts(db, scope, filter);
}

/** The account of a wallet, or null when the ledger has none for it (yet). */
export function findWalletAccount(db: Db, scope: TenantScope, walletId: string): Promise<LedgerAccount | null> {
  return store.findWalletAccount(db, scope, walletId);
}

/** A wallet account's lines, newest first, each with the balance right after it; one more than `limit` when there is a next page. */
export function statementLines(
  db: Db,
  account: LedgerAccount,
  page: Parameters<typeof store.statementLines>[2],
): Promise<store.StatementLineRow[]> {
  return store.statementLines(db, account, page);
}
