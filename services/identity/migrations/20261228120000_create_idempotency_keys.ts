import type { Knex } from 'knex';
import { createIdempotencyTable, IDEMPOTENCY_TABLE } from '@wallet/kit';

/** Creations (tenants, organizations, keys, team members, providers) honour an Idempotency-Key. */
export async function up(db: Knex): Promise<void> {
  await createIdempotencyTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists(IDEMPOTENCY_TABLE);
}
