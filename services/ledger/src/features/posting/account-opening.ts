import type { Tx } from '@wallet/kit';
import * as store from './posting-store';

export type { AccountRef } from './posting-store';

/**
 * Opens accounts that do not exist yet, in the caller's transaction; a concurrent opener wins
 * quietly. Accounts are opened where entries are posted: through posting's own store, which no
 * other feature touches.
 */
export function openAccounts(tx: Tx, refs: store.AccountRef[]): Promise<void> {
  return store.openAccounts(tx, refs);
}
