import type { Knex } from 'knex';

/**
 * The event log and webhook delivery (docs/events.md). `platform_events` keeps each event once
 * (its id is derived from what it announces, so an event announced again is the same row), with
 * the exact JSON every delivery sends. An endpoint's secrets are sealed under the master key, as
 * momo providers' are; during a rotation two are valid, and both sign. A delivery is one event to
 * one endpoint; its attempts are kept on the row (a bounded list), which the worker locks while it
 * attempts it.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE platform_events (
      seq          bigserial PRIMARY KEY,
      id           text NOT NULL UNIQUE,
      tenant_id    text NOT NULL,
      environment  text NOT NULL CHECK (environment IN ('test', 'live')),
      type         text NOT NULL,
      object_id    text NOT NULL,
      payload      text NOT NULL,
      created_at   timestamptz NOT NULL,
      recorded_at  timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX platform_events_scope ON platform_events (tenant_id, environment, seq);
    CREATE INDEX platform_events_object ON platform_events (tenant_id, object_id, seq);
    -- The retention purge finds old events along it: rows arrive in time order, so a BRIN index
    -- costs the insert next to nothing.
    CREATE INDEX platform_events_recorded_at ON platform_events USING brin (recorded_at);

    CREATE TABLE webhook_endpoints (
      seq              bigserial UNIQUE,
      id               text PRIMARY KEY,
      tenant_id        text NOT NULL,
      environment      text NOT NULL CHECK (environment IN ('test', 'live')),
      url              text NOT NULL,
      description      text,
      event_types      text[] NOT NULL CHECK (cardinality(event_types) > 0),
      enabled          boolean NOT NULL DEFAULT true,
      disabled_reason  text CHECK (disabled_reason IN ('failing', 'gone')),
      -- Since when every attempt has failed; null after a success.
      failing_since    timestamptz,
      created_at       timestamptz NOT NULL DEFAULT now(),
      updated_at       timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_endpoints_scope ON webhook_endpoints (tenant_id, environment, seq);

    CREATE TABLE webhook_endpoint_secrets (
      id             bigserial PRIMARY KEY,
      endpoint_id    text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      ciphertext     bytea NOT NULL,
      master_key_id  text NOT NULL,
      valid_until    timestamptz,
      created_at     timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX webhook_endpoint_secrets_one_current ON webhook_endpoint_secrets (endpoint_id) WHERE valid_until IS NULL;
    CREATE INDEX webhook_endpoint_secrets_endpoint ON webhook_endpoint_secrets (endpoint_id, id);

    CREATE TABLE webhook_deliveries (
      seq              bigserial PRIMARY KEY,
      -- Derived from the endpoint and the event, which are unique together.
      id               text NOT NULL,
      endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id         text NOT NULL,
      event_type       text NOT NULL,
      object_id        text NOT NULL,
      status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempt_count    integer NOT NULL DEFAULT 0,
      attempts         jsonb NOT NULL DEFAULT '[]',
      next_attempt_at  timestamptz,
      created_at       timestamptz NOT NULL DEFAULT now(),
      updated_at       timestamptz NOT NULL DEFAULT now(),
      UNIQUE (endpoint_id, event_id)
    );
    -- The worker's due deliveries, and the earlier ones of the same object it waits for.
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_object_order ON webhook_deliveries (endpoint_id, object_id, seq) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
    CREATE INDEX webhook_deliveries_created_at ON webhook_deliveries USING brin (created_at);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS webhook_deliveries, webhook_endpoint_secrets, webhook_endpoints, platform_events');
}
