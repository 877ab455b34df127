import type { Knex } from 'knex';
import { createTenantConfigTable, TENANT_CONFIG_TABLE } from '@wallet/kit';

/** Treasury's copy of each tenant's configuration, fed by identity's tenant events as payments' is. */
export async function up(db: Knex): Promise<void> {
  await createTenantConfigTable(db);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`DROP TABLE IF EXISTS ${TENANT_CONFIG_TABLE}`);
}
