import type { Knex } from 'knex';
import { createInboxTable, createOutboxTable, INBOX_TABLE, OUTBOX_TABLE } from '@wallet/kit';

// First of all: the outbox carries posting commands to the ledger in the same transaction as
// the business record, and the inbox makes the ledger's events finish a record exactly once.
export async function up(db: Knex): Promise<void> {
  await createOutboxTable(db);
  await createInboxTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable(INBOX_TABLE);
  await db.schema.dropTable(OUTBOX_TABLE);
}
