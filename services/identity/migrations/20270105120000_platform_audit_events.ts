import type { Knex } from 'knex';

/**
 * The platform's own records (the operator's dead-letter replays and discards) belong to no
 * tenant: tenant_id null. Every tenant's listing asks for its own tenant_id, so none sees them.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE audit_events ALTER COLUMN tenant_id DROP NOT NULL');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE audit_events ALTER COLUMN tenant_id SET NOT NULL');
}
