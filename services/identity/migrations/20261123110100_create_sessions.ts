import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE sessions (
      id           text PRIMARY KEY,
      -- SHA-256 (hex) of the token; the token itself exists only in the login answer.
      token_hash   text NOT NULL CONSTRAINT sessions_token_hash_key UNIQUE,
      tenant_id    text NOT NULL REFERENCES tenants (id),
      member_id    text NOT NULL REFERENCES team_members (id),
      environment  text NOT NULL CHECK (environment IN ('test', 'live')),
      expires_at   timestamptz NOT NULL,
      revoked_at   timestamptz,
      created_at   timestamptz NOT NULL DEFAULT now()
    );
    -- Deactivating a member revokes its open sessions.
    CREATE INDEX sessions_member_open ON sessions (member_id) WHERE revoked_at IS NULL;
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS sessions');
}
