import type { Knex } from 'knex';

/**
 * Who created and who published a fee schedule, as the audit names them, kept on the schedule so
 * every reader of fees sees it without the audit trail. Schedules made before stay null: their
 * makers were only ever in the audit trail.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE fee_schedules ADD COLUMN IF NOT EXISTS created_by text, ADD COLUMN IF NOT EXISTS published_by text');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE fee_schedules DROP COLUMN IF EXISTS published_by, DROP COLUMN IF EXISTS created_by');
}
