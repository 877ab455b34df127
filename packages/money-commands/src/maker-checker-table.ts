import type { Knex } from 'knex';
import { createIndexConcurrently, inboxFilters, type ListFilters } from '@wallet/kit';

/*
 * The columns and constraints every maker-checker case's table has (payout_cases,
 * withdrawals). The ledger's entries are the money; a case's row is the decision and which
 * entry each step produced. Every step has its own command id (<id>:hold, <id>:settle,
 * <id>:release), so a step posts at most once whatever is retried.
 *
 * Migrations that already ran build their tables from these, so an edit here changes what a
 * fresh database gets and not what a migrated one has: change a table in a migration of its
 * own instead.
 */

/** A CREATE TABLE's columns from payout_method to decision_failure_code, in this order, each ending in a comma. */
export function makerCheckerCaseColumns(allowed: { payoutMethods: readonly string[]; statuses: readonly string[] }): string {
  return `
      payout_method          text NOT NULL CHECK (payout_method IN (${sqlTextList(allowed.payoutMethods)})),
      destination            jsonb NOT NULL,
      narration              text,
      requested_by           text NOT NULL,
      status                 text NOT NULL DEFAULT 'pending' CHECK (status IN (${sqlTextList(allowed.statuses)})),
      hold_entry_id          text,
      failure_code           text,
      decided_by             text,
      decided_at             timestamptz,
      rejection_reason       text,
      decision_entry_id      text,
      -- The ledger refusing a settle or release is a programmer error (suspense holds the money);
      -- recorded rather than lost.
      decision_failure_code  text,`;
}

/** A CREATE TABLE's last lines: the checks between makerCheckerCaseColumns' columns. */
export const MAKER_CHECKER_CASE_CHECKS = `
      -- A decision needs the hold posted: it is what settle and release move out of suspense.
      CHECK (status NOT IN ('approved', 'rejected') OR (hold_entry_id IS NOT NULL AND decided_by IS NOT NULL AND decided_at IS NOT NULL)),
      CHECK (decided_by IS NULL OR decided_by <> requested_by),
      CHECK (failure_code IS NULL OR status = 'failed')`;

/** The values are the migration's own constants, never input. */
function sqlTextList(values: readonly string[]): string {
  return values.map((value) => `'${value}'`).join(', ');
}

/**
 * The approvals inbox lists a table's pending cases; with a year of decided cases above them, a
 * pending one could sit below any bound a list examines. A partial index holds only the pending
 * cases, so the inbox reads them alone. The status change that takes a case out of it is a
 * non-HOT update, which cases (written a few times each, unlike transfers) can afford. For a
 * migration with `transaction: false`.
 */
export async function createPendingCasesIndex(db: Knex, table: string): Promise<void> {
  await createIndexConcurrently(db, `${table}_pending`, `${table} (tenant_id, environment, seq) WHERE status = 'pending'`);
}

/** A case list's filters: pending cases from their own index (createPendingCasesIndex, kit's inboxFilters), any other status tested on a bounded number of the cases `indexed` finds. */
export function caseListFilters(status: string | undefined, indexed: Record<string, string | undefined> = {}): ListFilters {
  return inboxFilters({ status: 'pending' }, { indexed, tested: { status } });
}
