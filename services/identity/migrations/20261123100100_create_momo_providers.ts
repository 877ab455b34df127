import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- Shared by both environments of the tenant.
    CREATE TABLE momo_providers (
      -- Insertion order for lists and cursors.
      seq            bigserial NOT NULL UNIQUE,
      id             text PRIMARY KEY,
      tenant_id      text NOT NULL REFERENCES tenants (id),
      provider_code  text NOT NULL,
      name           text NOT NULL,
      created_at     timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT momo_providers_tenant_code UNIQUE (tenant_id, provider_code)
    );
    CREATE INDEX momo_providers_tenant_seq ON momo_providers (tenant_id, seq DESC);

    -- Webhook secrets, sealed (AES-256-GCM) under the master key named beside them: the current
    -- one (valid_until null) and those replaced by rotation, valid until valid_until.
    CREATE TABLE momo_provider_secrets (
      id             bigserial PRIMARY KEY,
      provider_id    text NOT NULL REFERENCES momo_providers (id),
      ciphertext     bytea NOT NULL,
      master_key_id  text NOT NULL,
      valid_until    timestamptz,
      created_at     timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX momo_provider_secrets_one_current ON momo_provider_secrets (provider_id) WHERE valid_until IS NULL;
    CREATE INDEX momo_provider_secrets_provider ON momo_provider_secrets (provider_id, id);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS momo_provider_secrets; DROP TABLE IF EXISTS momo_providers');
}
