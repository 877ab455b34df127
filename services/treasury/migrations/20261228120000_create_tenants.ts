import type { Knex } from 'knex';

/** Treasury's copy of each tenant's configuration, fed by identity's tenant events as payments' is. */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE tenants (
      id                      text PRIMARY KEY,
      default_currency        text NOT NULL CHECK (default_currency ~ '^[A-Z]{3}$'),
      allowed_currencies      text[] NOT NULL CHECK (cardinality(allowed_currencies) > 0),
      -- Money, so NUMERIC: the per-transaction ceiling, in currency units.
      max_transaction_amount  numeric NOT NULL CHECK (max_transaction_amount > 0),
      -- When identity says the configuration took effect: an older event never overwrites a newer one.
      config_occurred_at      timestamptz NOT NULL,
      updated_at              timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`DROP TABLE IF EXISTS tenants`);
}
