import type { Db, Tx } from '@wallet/kit';
import * as store from './bank-statements-store';

export type { StoredStatementLine, UnmatchedStatementLine } from './bank-statements-store';

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

/** One of the scope's lines, as the tenant reads it. */
export function findStatementLine(db: Db | Tx, scope: store.StatementScope, id: string): Promise<store.StoredStatementLine | null> {
  return store.findStatementLine(db, scope, id);
}

/** Claims this very line for a deposit (a workbench match); false when another deposit has it. */
export function claimLine(tx: Tx, scope: store.StatementScope, id: string, depositId: string): Promise<boolean> {
  return store.claimLine(tx, scope, id, depositId);
}

/** Unmatched lines of a bank, currency and amount within a date range: what a match rule chooses from. */
export function unmatchedLinesLike(
  db: Db,
  scope: store.StatementScope,
  like: { bankCode: string; currencyCode: string; amount: string; from: string; to: string },
  limit: number,
): Promise<store.StoredStatementLine[]> {
  return store.unmatchedLinesLike(db, scope, like, limit);
}
