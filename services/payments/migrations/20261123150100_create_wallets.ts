import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- Wallets without their balances: the ledger holds those, in the wallet's account.
    CREATE TABLE wallets (
      -- Insertion order for lists and cursors: ids sort by time only to the millisecond.
      seq               bigserial NOT NULL UNIQUE,
      id                text PRIMARY KEY,
      tenant_id         text NOT NULL,
      environment       text NOT NULL CHECK (environment IN ('test', 'live')),
      owner_type        text NOT NULL CHECK (owner_type IN ('user', 'branch', 'company')),
      owner_id          text NOT NULL,
      currency_code     text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'frozen')),
      -- When the ledger answered the command that opens the wallet's account. Until then a status
      -- command re-sends that opening first, so a late opening can never undo a freeze.
      ledger_opened_at  timestamptz,
      created_at        timestamptz NOT NULL DEFAULT now(),
      updated_at        timestamptz NOT NULL DEFAULT now()
    );
    -- One wallet per owner and currency in a tenant's environment; concurrent creations meet here.
    CREATE UNIQUE INDEX wallets_owner_currency ON wallets (tenant_id, environment, owner_type, owner_id, currency_code);
    CREATE INDEX wallets_tenant_seq ON wallets (tenant_id, environment, seq DESC);

    -- Each freeze or unfreeze sent to the ledger, in order. A change is pending from the moment
    -- it is claimed until the ledger's answer is recorded; at most one per wallet is pending, so
    -- the ledger applies a wallet's changes in the order payments decided them.
    CREATE TABLE wallet_status_changes (
      seq             bigserial NOT NULL UNIQUE,
      -- The ledger command id: re-sending it can only repeat the same answer.
      command_id      text PRIMARY KEY,
      wallet_id       text NOT NULL REFERENCES wallets (id),
      tenant_id       text NOT NULL,
      environment     text NOT NULL CHECK (environment IN ('test', 'live')),
      to_status       text NOT NULL CHECK (to_status IN ('active', 'frozen')),
      state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'applied', 'rejected')),
      reason          text NOT NULL,
      actor_type      text NOT NULL,
      actor_id        text NOT NULL,
      -- Audit metadata of the caller (the key behind an actor).
      actor_metadata  jsonb NOT NULL DEFAULT '{}',
      correlation_id  text,
      requested_at    timestamptz NOT NULL DEFAULT now(),
      settled_at      timestamptz,
      CONSTRAINT wallet_status_changes_settled CHECK ((state = 'pending') = (settled_at IS NULL))
    );
    CREATE UNIQUE INDEX wallet_status_changes_one_pending ON wallet_status_changes (wallet_id) WHERE state = 'pending';
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS wallet_status_changes; DROP TABLE IF EXISTS wallets');
}
