import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  // Reconciliation pages through the entries naming one type of business record, per tenant and
  // environment or across all of them, in (tenant, environment, seq) order. Without reference_id
  // (the wide, random column) the index stays narrow and cheap for the posting path to maintain.
  await db.raw('CREATE INDEX journal_entries_reference_type_seq ON journal_entries (reference_type, tenant_id, environment, seq)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS journal_entries_reference_type_seq');
}
