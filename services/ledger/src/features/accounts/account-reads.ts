import type { CreatedRange, LedgerAccount } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import type { TenantScope } from '../journal/journal-scope';
import * as store from './accounts-store';
import { lineAt } from './balance-at-store';

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

/** The instant one millisecond before `instant`: stamps are whole milliseconds, so "at or before it" is "before `instant`". */
function justBefore(instant: string): string {
  return new Date(Date.parse(instant) - 1).toISOString();
}

/**
 * Where a statement stamped in [createdFrom, createdTo) lies along the account's lines: the
 * newest line before each bound, found by bisection (balance-at-store). Null when no line can
 * be in it (none was stamped before createdTo).
 */
export async function statementSeqs(db: Db, account: LedgerAccount, range: CreatedRange): Promise<store.StatementSeqs | null> {
  const lineBefore = (instant: string | undefined) => (instant === undefined ? undefined : lineAt(db, account.id, justBefore(instant)));
  const [last, beforeFirst] = await Promise.all([lineBefore(range.createdTo), lineBefore(range.createdFrom)]);
  if (last === null) return null;
  return { ...(last ? { upTo: last.entrySeq } : {}), ...(beforeFirst ? { after: beforeFirst.entrySeq } : {}) };
}
