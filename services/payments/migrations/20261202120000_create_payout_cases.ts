import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- A wallet payout under maker-checker.
    CREATE TABLE payout_cases (
      seq                      bigserial NOT NULL,
      id                       text PRIMARY KEY,
      tenant_id                text NOT NULL,
      environment              text NOT NULL CHECK (environment IN ('test', 'live')),
      wallet_id                text NOT NULL REFERENCES wallets (id),
      currency_code            text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      amount                   numeric NOT NULL CHECK (amount > 0),
      fee                      numeric NOT NULL CHECK (fee >= 0),
      commission               numeric NOT NULL CHECK (commission >= 0 AND commission <= fee),
      fee_schedule_id          text,
      fee_rule_id              text,
      platform_commission_bps  integer NOT NULL CHECK (platform_commission_bps BETWEEN 0 AND 10000),
      payout_method          text NOT NULL CHECK (payout_method IN ('momo', 'bank')),
      destination            jsonb NOT NULL,
      narration              text,
      requested_by           text NOT NULL,
      status                 text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'completed', 'failed')),
      hold_entry_id          text,
      failure_code           text,
      decided_by             text,
      decided_at             timestamptz,
      rejection_reason       text,
      decision_entry_id      text,
      -- The ledger refusing a settle or release is a programmer error (suspense holds the money);
      -- recorded rather than lost.
      decision_failure_code  text,
      created_at               timestamptz NOT NULL DEFAULT now(),
      -- A decision needs the hold posted: it is what settle and release move out of suspense.
      CHECK (status NOT IN ('approved', 'rejected') OR (hold_entry_id IS NOT NULL AND decided_by IS NOT NULL AND decided_at IS NOT NULL)),
      CHECK (decided_by IS NULL OR decided_by <> requested_by),
      CHECK (failure_code IS NULL OR status = 'failed')
    );
    CREATE INDEX payout_cases_tenant_seq ON payout_cases (tenant_id, environment, seq DESC);
    CREATE INDEX payout_cases_wallet_seq ON payout_cases (wallet_id, seq DESC);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE payout_cases');
}
