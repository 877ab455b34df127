import type { Knex } from 'knex';

/**
 * One row per request the gateway routed. Rows without a tenant (failed authentications,
 * system calls) are kept for operators; the tenant API never shows them.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE request_logs (
      id                          text PRIMARY KEY,
      tenant_id                   text,
      environment                 text CHECK (environment IN ('test', 'live')),
      correlation_id              text NOT NULL,
      method                      text NOT NULL,
      path                        text NOT NULL,
      status                      smallint NOT NULL,
      api_key_id                  text,
      auth_mode                   text,
      request_signature_verified  boolean NOT NULL DEFAULT false,
      idempotency_key             text,
      actor_type                  text,
      actor_id                    text,
      duration_ms                 integer NOT NULL,
      error_code                  text,
      created_at                  timestamptz NOT NULL
    );
    -- The list: one tenant and environment, newest first, the id breaking ties of one millisecond.
    CREATE INDEX request_logs_tenant_time ON request_logs (tenant_id, environment, created_at DESC, id DESC);
    -- The lookup a developer starts from: the correlation id of a response they got.
    CREATE INDEX request_logs_tenant_correlation ON request_logs (tenant_id, environment, correlation_id);
    -- Retention: rows arrive roughly in time order, so a BRIN index finds the old blocks at a fraction of a btree's upkeep.
    CREATE INDEX request_logs_created_brin ON request_logs USING brin (created_at);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('request_logs');
}
