import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- Insertion order for team lists and cursors: created_at is the transaction's clock, shared by
    -- every row of one transaction, and has more precision than a cursor's timestamp would keep.
    ALTER TABLE team_members ADD COLUMN seq bigserial NOT NULL;
    ALTER TABLE team_members ADD CONSTRAINT team_members_seq_key UNIQUE (seq);
    CREATE INDEX team_members_tenant_seq ON team_members (tenant_id, seq DESC);
    -- Login knows the address but not the tenant.
    CREATE INDEX team_members_email ON team_members (lower(email));
    -- An org-admin count per tenant, taken under lock on every role or status change.
    CREATE INDEX team_members_tenant_admins ON team_members (tenant_id, id) WHERE org_role = 'org-admin';
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    DROP INDEX IF EXISTS team_members_tenant_admins;
    DROP INDEX IF EXISTS team_members_email;
    DROP INDEX IF EXISTS team_members_tenant_seq;
    ALTER TABLE team_members DROP COLUMN IF EXISTS seq;
  `);
}
