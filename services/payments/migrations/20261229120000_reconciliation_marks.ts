import type { Knex } from 'knex';
import { createFullRunsTable, createReconciliationMarksTable } from '@wallet/money-commands';

/**
 * Check 3's marks (how far payments' records and the entries naming them were verified), and
 * indexes for check 4: the unused statement lines of a scope in id order, and across scopes.
 * Background full runs are recorded beside the scheduled ones.
 */
export async function up(db: Knex): Promise<void> {
  await createReconciliationMarksTable(db);
  await db.raw(`
    CREATE INDEX IF NOT EXISTS bank_statement_lines_unused_scope ON bank_statement_lines (tenant_id, environment, id) WHERE deposit_id IS NULL;
    CREATE INDEX IF NOT EXISTS bank_statement_lines_unused ON bank_statement_lines (id) WHERE deposit_id IS NULL;
  `);
  await createFullRunsTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(
    'DROP TABLE IF EXISTS reconciliation_marks, reconciliation_full_runs; DROP INDEX IF EXISTS bank_statement_lines_unused_scope, bank_statement_lines_unused',
  );
}
