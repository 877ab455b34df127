import type { Knex } from 'knex';
import { createOutboxTable, OUTBOX_TABLE } from '@wallet/kit';

export async function up(db: Knex): Promise<void> {
  await createOutboxTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists(OUTBOX_TABLE);
}
