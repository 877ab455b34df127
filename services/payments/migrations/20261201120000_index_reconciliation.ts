import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  // Reconciliation's bank evidence asks for slips still pending after a while. Partial, so only
  // the few pending slips are indexed and the completed ones cost nothing.
  await db.raw(
    `CREATE INDEX deposits_pending_slips ON deposits (tenant_id, environment, created_at) WHERE source = 'bank_slip' AND status = 'pending'`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS deposits_pending_slips');
}
