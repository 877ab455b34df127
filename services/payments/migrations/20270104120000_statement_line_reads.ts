import type { Knex } from 'knex';

/**
 * The tenant's listing of imported statement lines, newest first: all of a scope's lines, and an
 * import's. (The scope's unmatched lines already have their partial index.) Built concurrently,
 * so a long statement table keeps taking imports and verifications while it builds.
 */
export const transaction = false;

export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE INDEX CONCURRENTLY IF NOT EXISTS bank_statement_lines_scope ON bank_statement_lines (tenant_id, environment, id)');
  await db.raw('CREATE INDEX CONCURRENTLY IF NOT EXISTS bank_statement_lines_import ON bank_statement_lines (import_id, id)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS bank_statement_lines_scope, bank_statement_lines_import');
}
