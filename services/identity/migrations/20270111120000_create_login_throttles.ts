import type { Knex } from 'knex';

/**
 * Failed logins per login address (docs/decisions/authentication.md): one row per address that
 * failed lately, member or not, so that a lock says nothing about who is a member. The address
 * itself is not kept, only its SHA-256.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE login_throttles (
      -- SHA-256 (hex) of the lower-cased address.
      email_hash           text PRIMARY KEY CHECK (email_hash ~ '^[0-9a-f]{64}$'),
      -- Attempts counted since the last success; each is counted before its password is checked.
      failures             integer NOT NULL CHECK (failures > 0),
      last_failure_at      timestamptz NOT NULL,
      locked_until         timestamptz,
      -- What the latest attempt was told: RETURNING shows only the row as the statement left it.
      last_attempt_refused boolean NOT NULL DEFAULT false
    );
    -- The retention purge finds forgotten rows along it.
    CREATE INDEX login_throttles_last_failure_at ON login_throttles (last_failure_at);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE IF EXISTS login_throttles');
}
