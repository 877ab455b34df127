import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE audit_events (
      -- Insertion order for lists and cursors.
      seq             bigserial NOT NULL UNIQUE,
      id              text PRIMARY KEY,
      tenant_id       text NOT NULL,
      -- null: tenant-wide (team, keys of both environments); else visible only from that environment.
      environment     text CHECK (environment IN ('test', 'live')),
      action          text NOT NULL,
      actor_type      text NOT NULL,
      actor_id        text NOT NULL,
      target_type     text NOT NULL,
      target_id       text NOT NULL,
      metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
      correlation_id  text,
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX audit_events_tenant_seq ON audit_events (tenant_id, seq DESC);
    CREATE INDEX audit_events_tenant_target ON audit_events (tenant_id, target_type, target_id, seq DESC);

    -- Append-only: an audit trail that can be edited proves nothing.
    CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP;
    END;
    $$;
    CREATE TRIGGER audit_events_no_update_or_delete
      BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
    CREATE TRIGGER audit_events_no_truncate
      BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS audit_events; DROP FUNCTION IF EXISTS audit_events_append_only()');
}
