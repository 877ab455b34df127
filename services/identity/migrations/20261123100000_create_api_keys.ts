import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE api_keys (
      -- Insertion order for lists and cursors.
      seq           bigserial NOT NULL UNIQUE,
      id            text PRIMARY KEY,
      tenant_id     text NOT NULL REFERENCES tenants (id),
      name          text NOT NULL,
      auth_mode     text NOT NULL CHECK (auth_mode IN ('secret', 'hmac')),
      environment   text NOT NULL CHECK (environment IN ('test', 'live')),
      scopes        text[] NOT NULL,
      -- {requireRequestSigning, requireActorHeaders, allowedIps}
      restrictions  jsonb NOT NULL,
      -- sk_test_ / sk_live_ and the last 4 characters of the current secret key; null for hmac keys.
      key_prefix    text,
      last4         text,
      expires_at    timestamptz,
      revoked_at    timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      updated_at    timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT api_keys_secret_shown_as_prefix CHECK ((auth_mode = 'secret') = (key_prefix IS NOT NULL AND last4 IS NOT NULL))
    );
    CREATE INDEX api_keys_tenant_seq ON api_keys (tenant_id, seq DESC);

    -- A key's credentials: the current one (valid_until null) and those replaced by rotation,
    -- which keep working until valid_until. Secret keys are kept only as their SHA-256; hmac
    -- signing secrets must be read back to verify signatures, so they are sealed (AES-256-GCM)
    -- under the master key named beside them.
    CREATE TABLE api_key_credentials (
      id                         bigserial PRIMARY KEY,
      key_id                     text NOT NULL REFERENCES api_keys (id),
      secret_hash                text UNIQUE,
      signing_secret_ciphertext  bytea,
      master_key_id              text,
      valid_until                timestamptz,
      created_at                 timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT api_key_credentials_one_kind CHECK ((secret_hash IS NULL) <> (signing_secret_ciphertext IS NULL)),
      CONSTRAINT api_key_credentials_key_named CHECK ((signing_secret_ciphertext IS NULL) = (master_key_id IS NULL))
    );
    CREATE UNIQUE INDEX api_key_credentials_one_current ON api_key_credentials (key_id) WHERE valid_until IS NULL;
    CREATE INDEX api_key_credentials_key ON api_key_credentials (key_id, id);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS api_key_credentials; DROP TABLE IF EXISTS api_keys');
}
