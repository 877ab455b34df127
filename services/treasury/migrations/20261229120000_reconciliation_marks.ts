import type { Knex } from 'knex';
import { createReconciliationMarksTable } from '@wallet/money-commands';

/** Check 3's marks: how far treasury's own records, and the entries naming them, were verified. */
export async function up(db: Knex): Promise<void> {
  await createReconciliationMarksTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS reconciliation_marks');
}
