import type { Knex } from 'knex';

/**
 * Which payments instance delivers an approved case, until when: a round leases its cases, so two
 * instances deliver different ones, and a crashed instance's cases are delivered again once its
 * lease runs out (docs/scaling.md, "N instances").
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE payout_cases ADD COLUMN rail_lease_until timestamptz');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE payout_cases DROP COLUMN IF EXISTS rail_lease_until');
}
