import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- A tenant's fee schedules, shared by both environments of the tenant. A draft takes rules;
    -- a published schedule is immutable. At most one schedule per tenant is the default, and
    -- only a published one can be.
    CREATE TABLE fee_schedules (
      -- Insertion order for lists and cursors.
      seq                      bigserial NOT NULL UNIQUE,
      id                       text PRIMARY KEY,
      tenant_id                text NOT NULL,
      name                     text NOT NULL,
      platform_commission_bps  integer NOT NULL CHECK (platform_commission_bps BETWEEN 0 AND 10000),
      status                   text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
      is_default               boolean NOT NULL DEFAULT false,
      -- The isDefault asked for at creation: what publishing without makeDefault does.
      default_on_publish       boolean NOT NULL DEFAULT false,
      -- 'system': the platform operator made it and set its commission; 'tenant': inherited.
      origin                   text NOT NULL CHECK (origin IN ('system', 'tenant')),
      published_at             timestamptz,
      created_at               timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT fee_schedules_published_at CHECK ((status = 'published') = (published_at IS NOT NULL)),
      CONSTRAINT fee_schedules_default_is_published CHECK (NOT is_default OR status = 'published')
    );
    CREATE UNIQUE INDEX fee_schedules_one_default ON fee_schedules (tenant_id) WHERE is_default;
    CREATE INDEX fee_schedules_tenant_seq ON fee_schedules (tenant_id, seq DESC);

    -- Amounts are NUMERIC at most at the currency's scale; percentage_fee is a percent.
    CREATE TABLE fee_rules (
      seq               bigserial NOT NULL UNIQUE,
      id                text PRIMARY KEY,
      schedule_id       text NOT NULL REFERENCES fee_schedules (id),
      transaction_type  text NOT NULL CHECK (transaction_type IN ('deposit', 'transfer', 'payout', 'withdrawal')),
      currency_code     text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      min_amount        numeric CHECK (min_amount >= 0),
      max_amount        numeric CHECK (max_amount >= 0),
      flat_fee          numeric NOT NULL DEFAULT 0 CHECK (flat_fee >= 0),
      percentage_fee    numeric NOT NULL DEFAULT 0 CHECK (percentage_fee >= 0 AND percentage_fee <= 100),
      min_fee           numeric CHECK (min_fee >= 0),
      max_fee           numeric CHECK (max_fee >= 0),
      created_at        timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT fee_rules_band CHECK (min_amount IS NULL OR max_amount IS NULL OR min_amount <= max_amount),
      CONSTRAINT fee_rules_fee_bounds CHECK (min_fee IS NULL OR max_fee IS NULL OR min_fee <= max_fee)
    );
    CREATE INDEX fee_rules_schedule_match ON fee_rules (schedule_id, transaction_type, currency_code, seq);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS fee_rules; DROP TABLE IF EXISTS fee_schedules');
}
