import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- A transfer as payments decided it; the ledger's entry is the money. A transfer is pending
    -- from the moment it and its posting command commit together until the ledger's answer is
    -- recorded, exactly once, as completed (with the entry) or failed (with the ledger's code).
    CREATE TABLE transfers (
      -- Insertion order for lists and cursors (a bigserial is unique by construction).
      seq                      bigserial NOT NULL,
      id                       text PRIMARY KEY,
      tenant_id                text NOT NULL,
      environment              text NOT NULL CHECK (environment IN ('test', 'live')),
      from_wallet_id           text NOT NULL REFERENCES wallets (id),
      to_wallet_id             text NOT NULL REFERENCES wallets (id),
      currency_code            text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      amount                   numeric NOT NULL CHECK (amount > 0),
      -- Charged to the sender on top of the amount; commission is the platform's share of it.
      fee                      numeric NOT NULL CHECK (fee >= 0),
      commission               numeric NOT NULL CHECK (commission >= 0 AND commission <= fee),
      fee_schedule_id          text,
      fee_rule_id              text,
      platform_commission_bps  integer NOT NULL CHECK (platform_commission_bps BETWEEN 0 AND 10000),
      description              text,
      status                   text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
      journal_entry_id         text,
      failure_code             text,
      created_at               timestamptz NOT NULL DEFAULT now(),
      finished_at              timestamptz,
      CHECK (from_wallet_id <> to_wallet_id),
      CHECK ((status = 'pending' AND journal_entry_id IS NULL AND failure_code IS NULL AND finished_at IS NULL)
          OR (status = 'completed' AND journal_entry_id IS NOT NULL AND failure_code IS NULL AND finished_at IS NOT NULL)
          OR (status = 'failed' AND journal_entry_id IS NULL AND failure_code IS NOT NULL AND finished_at IS NOT NULL))
    );
    CREATE INDEX transfers_tenant_seq ON transfers (tenant_id, environment, seq DESC);
    -- walletId lists either side: one index per side, combined by a bitmap OR.
    CREATE INDEX transfers_from_wallet_seq ON transfers (from_wallet_id, seq DESC);
    CREATE INDEX transfers_to_wallet_seq ON transfers (to_wallet_id, seq DESC);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE transfers');
}
