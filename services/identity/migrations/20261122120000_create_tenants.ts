import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE tenants (
      -- Insertion order for lists and cursors: ids sort by time only to the millisecond.
      seq                     bigserial NOT NULL UNIQUE,
      id                      text PRIMARY KEY,
      name                    text NOT NULL,
      slug                    text NOT NULL CONSTRAINT tenants_slug_key UNIQUE,
      -- {defaultCurrency, allowedCurrencies}; the ceiling is money, so it lives in a NUMERIC column.
      config                  jsonb NOT NULL,
      max_transaction_amount  numeric NOT NULL CHECK (max_transaction_amount > 0),
      created_at              timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS tenants');
}
