import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- One row per key and (tenant, environment): either held by one attempt (in_progress, with a
    -- lock that a crashed holder stops renewing) or the answer the key got (completed, the exact bytes).
    CREATE TABLE idempotency_keys (
      tenant_id         text NOT NULL,
      environment       text NOT NULL,
      idempotency_key   text NOT NULL,
      -- SHA-256 hex of what makes two requests "the same" (requestFingerprint).
      fingerprint       text NOT NULL,
      status            text NOT NULL,
      -- Names the attempt holding the key: completion, renewal and release only act on the
      -- holder's own row, so an attempt whose lock was taken over can no longer write.
      lock_token        uuid NOT NULL,
      locked_until      timestamptz,
      response_status   smallint,
      response_headers  jsonb,
      response_body     bytea,
      created_at        timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
      completed_at      timestamptz,
      expires_at        timestamptz NOT NULL,
      CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, environment, idempotency_key),
      CONSTRAINT idempotency_keys_environment_check CHECK (environment IN ('test', 'live')),
      CONSTRAINT idempotency_keys_fingerprint_check CHECK (char_length(fingerprint) = 64),
      -- A held row has a lock; a completed row has the whole answer to replay.
      CONSTRAINT idempotency_keys_status_check CHECK ((status = 'in_progress' AND locked_until IS NOT NULL)
        OR (status = 'completed' AND response_status IS NOT NULL AND response_headers IS NOT NULL AND response_body IS NOT NULL))
    );
    -- The purge walks expired rows in order.
    CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS idempotency_keys');
}
