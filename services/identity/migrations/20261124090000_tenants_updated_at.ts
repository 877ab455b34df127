import type { Knex } from 'knex';

/**
 * When the configuration last changed: `tenant.updated` carries it as `occurredAt`, and readers
 * keep the latest by it, so a change must never carry an earlier time than the one before it.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE tenants ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE tenants DROP COLUMN IF EXISTS updated_at');
}
