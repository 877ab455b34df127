import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE accounts (
      id             text PRIMARY KEY,
      tenant_id      text NOT NULL,
      environment    text NOT NULL CHECK (environment IN ('test', 'live')),
      currency_code  char(3) NOT NULL,
      name           text NOT NULL,
      wallet_id      text,
      normal_side    char(2) NOT NULL CHECK (normal_side IN ('DR', 'CR')),
      non_negative   boolean NOT NULL DEFAULT false,
      status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'frozen')),
      -- Balance in the account's normal direction; the ledger alone writes it, with its lines.
      balance        numeric NOT NULL DEFAULT 0,
      created_at     timestamptz NOT NULL DEFAULT now(),
      -- The last line of defence: a wallet account can never be below zero, whatever the code does.
      CONSTRAINT accounts_non_negative CHECK (NOT non_negative OR balance >= 0),
      CONSTRAINT accounts_wallet_has_id CHECK ((name LIKE 'wallet:%') = (wallet_id IS NOT NULL))
    ) WITH (fillfactor = 70); -- room on each page, so balance updates stay heap-only (HOT)
    CREATE UNIQUE INDEX accounts_system_key ON accounts (tenant_id, environment, currency_code, name) WHERE wallet_id IS NULL;
    CREATE UNIQUE INDEX accounts_wallet_key ON accounts (tenant_id, environment, wallet_id) WHERE wallet_id IS NOT NULL;

    CREATE TABLE journal_entries (
      seq                bigserial NOT NULL,
      id                 text PRIMARY KEY,
      tenant_id          text NOT NULL,
      environment        text NOT NULL,
      kind               text NOT NULL,
      reference_type     text NOT NULL,
      reference_id       text NOT NULL,
      reverses_entry_id  text REFERENCES journal_entries (id),
      command_id         text NOT NULL UNIQUE,
      correlation_id     text,
      created_at         timestamptz NOT NULL
    );
    CREATE INDEX journal_entries_tenant_seq ON journal_entries (tenant_id, environment, seq DESC);

    -- Lines name their entry and account without foreign keys: the ledger writes both in the
    -- same transaction, reconciliation check 2 finds any orphan, and the per-row trigger of a
    -- foreign key costs about a third of a batch's time.
    CREATE TABLE journal_lines (
      entry_id       text NOT NULL,
      line_no        smallint NOT NULL,
      entry_seq      bigint NOT NULL,
      account_id     text NOT NULL,
      direction      char(2) NOT NULL CHECK (direction IN ('DR', 'CR')),
      amount         numeric NOT NULL CHECK (amount > 0),
      currency_code  char(3) NOT NULL,
      -- The account's balance right after this line: the running balance of statements.
      balance_after  numeric NOT NULL,
      PRIMARY KEY (entry_id, line_no)
    );
    CREATE INDEX journal_lines_account ON journal_lines (account_id, entry_seq DESC, line_no DESC);

    CREATE TABLE processed_commands (
      command_id    text PRIMARY KEY,
      tenant_id     text NOT NULL,
      payload_hash  text NOT NULL,
      -- json, not jsonb: stored as written (cheaper on the hot path) and still queryable.
      result        json NOT NULL,
      created_at    timestamptz NOT NULL DEFAULT now()
    );
  `);
  await db.raw(`
    CREATE TABLE outbox (
      id           bigserial PRIMARY KEY,
      message_id   text NOT NULL,
      exchange     text NOT NULL,
      routing_key  text NOT NULL,
      type         text NOT NULL,
      payload      text NOT NULL,
      headers      jsonb NOT NULL DEFAULT '{}',
      created_at   timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
    );
    ALTER TABLE outbox ADD CONSTRAINT outbox_message_id_unique UNIQUE (message_id);
    -- The delete of published rows, several times a second under load: a function, so that it runs
    -- with the planner kept on the outbox's indexes in the one round trip a plain statement takes.
    CREATE OR REPLACE FUNCTION outbox_delete(message_ids text[]) RETURNS void LANGUAGE sql SET enable_seqscan = off SET enable_bitmapscan = off
      AS $$ DELETE FROM outbox WHERE message_id = ANY(message_ids) $$;
  `);
  await db.raw(`
    CREATE TABLE inbox (
      message_id    text,
      type          text NOT NULL,
      processed_at  timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
      CONSTRAINT inbox_pkey PRIMARY KEY (message_id)
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS processed_commands, journal_lines, journal_entries, accounts, outbox, inbox');
}
