import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- Money in: mobile money webhooks (completed when recorded with their ledger command, or
    -- rejected) and bank slips (pending until verified against an imported statement line).
    CREATE TABLE deposits (
      seq               bigserial NOT NULL UNIQUE,
      id                text PRIMARY KEY,
      tenant_id         text NOT NULL,
      environment       text NOT NULL CHECK (environment IN ('test', 'live')),
      wallet_id         text NOT NULL REFERENCES wallets (id),
      amount            numeric NOT NULL CHECK (amount > 0),
      currency_code     text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      -- Charged out of the amount (the wallet gets amount - fee); the platform's share of it.
      fee               numeric NOT NULL DEFAULT 0 CHECK (fee >= 0 AND fee <= amount),
      commission        numeric NOT NULL DEFAULT 0 CHECK (commission >= 0 AND commission <= fee),
      fee_schedule_id   text,
      fee_rule_id       text,
      source            text NOT NULL CHECK (source IN ('momo', 'bank_slip')),
      -- The provider's transactionId, or the slip reference.
      external_ref      text NOT NULL,
      status            text NOT NULL CHECK (status IN ('pending', 'completed', 'rejected')),
      rejection_reason  text,
      -- The ledger command of a credited deposit, and the entry once the ledger confirmed it.
      command_id        text UNIQUE,
      journal_entry_id  text,
      provider_code     text,
      phone_number      text,
      bank_code         text,
      slip_reference    text,
      deposited_at      timestamptz,
      depositor_name    text,
      verified_by       text,
      verified_at       timestamptz,
      correlation_id    text,
      created_at        timestamptz NOT NULL DEFAULT now(),
      updated_at        timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT deposits_rejection_reason CHECK ((status = 'rejected') = (rejection_reason IS NOT NULL)),
      CONSTRAINT deposits_momo_provider CHECK (source <> 'momo' OR provider_code IS NOT NULL),
      CONSTRAINT deposits_slip_bank CHECK (source <> 'bank_slip' OR (bank_code IS NOT NULL AND slip_reference IS NOT NULL))
    );
    -- A provider's transaction credits at most once per tenant. Rejected attempts (a forged
    -- signature, a refused limit) stay out of it, so they never occupy the transactionId.
    -- Concurrent deliveries of one transaction meet here: one inserts, the others wait and give way.
    CREATE UNIQUE INDEX deposits_momo_transaction ON deposits (tenant_id, provider_code, external_ref)
      WHERE source = 'momo' AND status <> 'rejected';
    CREATE INDEX deposits_tenant_seq ON deposits (tenant_id, environment, seq DESC);
    CREATE INDEX deposits_wallet_seq ON deposits (wallet_id, seq DESC);

    CREATE TABLE bank_statement_imports (
      seq            bigserial NOT NULL UNIQUE,
      id             text PRIMARY KEY,
      tenant_id      text NOT NULL,
      environment    text NOT NULL CHECK (environment IN ('test', 'live')),
      bank_code      text NOT NULL,
      currency_code  text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      imported       integer NOT NULL,
      duplicates     integer NOT NULL,
      actor_type     text NOT NULL,
      actor_id       text NOT NULL,
      created_at     timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE bank_statement_lines (
      id             bigserial PRIMARY KEY,
      import_id      text NOT NULL REFERENCES bank_statement_imports (id),
      tenant_id      text NOT NULL,
      environment    text NOT NULL CHECK (environment IN ('test', 'live')),
      bank_code      text NOT NULL,
      currency_code  text NOT NULL,
      line_date      date NOT NULL,
      -- Trimmed as imported; matched trimmed and case-insensitively (reference_key).
      reference      text NOT NULL,
      reference_key  text NOT NULL,
      amount         numeric NOT NULL CHECK (amount > 0),
      description    text,
      -- The one deposit this line verified: a line matches at most one deposit.
      deposit_id     text UNIQUE REFERENCES deposits (id),
      matched_at     timestamptz,
      CONSTRAINT bank_statement_lines_matched CHECK ((deposit_id IS NULL) = (matched_at IS NULL))
    );
    -- A line imported again (same bank, currency, date, reference and amount) is a duplicate.
    CREATE UNIQUE INDEX bank_statement_lines_once ON bank_statement_lines (tenant_id, environment, bank_code, currency_code, line_date, reference, amount);
    CREATE INDEX bank_statement_lines_unmatched ON bank_statement_lines (tenant_id, environment, bank_code, currency_code, reference_key, amount)
      WHERE deposit_id IS NULL;
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS bank_statement_lines; DROP TABLE IF EXISTS bank_statement_imports; DROP TABLE IF EXISTS deposits');
}
