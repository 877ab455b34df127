import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE team_members (
      id                 text PRIMARY KEY,
      tenant_id          text NOT NULL REFERENCES tenants (id),
      name               text NOT NULL,
      email              text NOT NULL,
      org_role           text NOT NULL CHECK (org_role IN ('org-admin', 'operator', 'approver', 'developer', 'finance-viewer', 'observer', 'user')),
      status             text NOT NULL CHECK (status IN ('invited', 'active', 'deactivated')),
      password_hash      text,
      -- SHA-256 (hex) of the invite token; the token itself exists only in the invite email.
      invite_token_hash  text UNIQUE,
      invite_expires_at  timestamptz,
      -- Set once the invite email was accepted by the mail server.
      invite_sent_at     timestamptz,
      created_at         timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT team_members_invite_complete CHECK ((invite_token_hash IS NULL) = (invite_expires_at IS NULL))
    );
    -- One member per address in a tenant, whatever the case it was typed in.
    CREATE UNIQUE INDEX team_members_tenant_email ON team_members (tenant_id, lower(email));
    CREATE INDEX team_members_tenant_created ON team_members (tenant_id, created_at, id);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS team_members');
}
