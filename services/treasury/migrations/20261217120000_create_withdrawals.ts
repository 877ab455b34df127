import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- A tenant withdrawal under maker-checker.
    CREATE TABLE withdrawals (
      seq                    bigserial NOT NULL UNIQUE,
      id                     text PRIMARY KEY,
      tenant_id              text NOT NULL,
      environment            text NOT NULL CHECK (environment IN ('test', 'live')),
      source                 text NOT NULL CHECK (source IN ('tenant_fees', 'operating_float')),
      currency_code          text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      amount                 numeric NOT NULL CHECK (amount > 0),
      payout_method          text NOT NULL CHECK (payout_method IN ('momo', 'bank', 'cash')),
      destination            jsonb NOT NULL,
      narration              text,
      requested_by           text NOT NULL,
      status                 text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'failed')),
      hold_entry_id          text,
      failure_code           text,
      decided_by             text,
      decided_at             timestamptz,
      rejection_reason       text,
      decision_entry_id      text,
      -- The ledger refusing a settle or release is a programmer error (suspense holds the money);
      -- recorded rather than lost.
      decision_failure_code  text,
      created_at             timestamptz NOT NULL,
      -- A decision needs the hold posted: it is what settle and release move out of suspense.
      CHECK (status NOT IN ('approved', 'rejected') OR (hold_entry_id IS NOT NULL AND decided_by IS NOT NULL AND decided_at IS NOT NULL)),
      CHECK (decided_by IS NULL OR decided_by <> requested_by),
      CHECK (failure_code IS NULL OR status = 'failed')
    );
    CREATE INDEX withdrawals_scope_seq ON withdrawals (tenant_id, environment, seq DESC);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE withdrawals');
}
