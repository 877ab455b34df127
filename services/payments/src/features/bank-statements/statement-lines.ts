import type { Db, Tx } from '@wallet/kit';
import * as store from './bank-statements-store';

export type { UnmatchedStatementLine } from './bank-statements-store';

/*
 * What other features ask of imported statement lines: a bank slip claims the line that proves
 * it, and reconciliation lists the lines no deposit used. Through bank statements' own store,
 * which no other feature touches.
 */

/** Claims the first free line matching the slip for its deposit, in the caller's transaction; null when none matches. */
export function claimMatchingLine(
  tx: Tx,
  scope: store.StatementScope,
  slip: { depositId: string; bankCode: string; currencyCode: string; reference: string; amount: string },
): Promise<{ id: string } | null> {
  return store.claimMatchingLine(tx, scope, slip);
}

/** Statement lines no deposit used, oldest first, at most `limit`. */
export function unmatchedStatementLines(
  db: Db,
  scope: store.StatementScope | null,
  limit: number,
): Promise<store.UnmatchedStatementLine[]> {
  return store.unmatchedStatementLines(db, scope, limit);
}
