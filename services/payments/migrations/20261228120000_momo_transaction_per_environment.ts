import type { Knex } from 'knex';

/**
 * A provider's transaction credits at most once per tenant and environment: test and live are
 * separate worlds, so the same transactionId delivered to a test wallet and to a live one is two
 * deposits. The new key only adds a column to the old one, so every database the old index
 * held builds it; it is built before the old one goes, in the migration's transaction, so no
 * moment is left without a repeat check.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE UNIQUE INDEX deposits_momo_transaction_per_environment ON deposits (tenant_id, environment, provider_code, external_ref)
      WHERE source = 'momo' AND status <> 'rejected';
    DROP INDEX deposits_momo_transaction;
  `);
}

/** Fails while one transaction is credited in both environments: that cannot go back to one key without losing a deposit. */
export async function down(db: Knex): Promise<void> {
  await db.raw(`
    CREATE UNIQUE INDEX deposits_momo_transaction ON deposits (tenant_id, provider_code, external_ref)
      WHERE source = 'momo' AND status <> 'rejected';
    DROP INDEX deposits_momo_transaction_per_environment;
  `);
}
