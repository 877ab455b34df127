import type { Knex } from 'knex';
import { createInboxTable, INBOX_TABLE } from '@wallet/kit';

/** Ids of consumed messages (audit records from other services), so a redelivery records nothing twice. */
export async function up(db: Knex): Promise<void> {
  await createInboxTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists(INBOX_TABLE);
}
