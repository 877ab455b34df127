import type { Knex } from 'knex';
import { type Db, microBatch, prepared, type RetentionRule, STATEMENT_BATCH_CONCURRENCY } from '@wallet/kit';

/** The only SQL of the gateway: nonces of signed requests, shared by every instance. */
export interface NonceStore {
  /** True when this nonce of this key was not in use (or its record had expired): it is now. */
  recordFirstUse(keyId: string, nonce: string, now: Date, expiresAt: Date): Promise<boolean>;
}

/**
 * A nonce is kept until its request's timestamp can no longer be accepted (`expires_at`); an
 * expired row already counts as unused, so the purge only keeps the table small.
 */
export function nonceRetentionRule(intervalMs: number, lifetimeMs: number): RetentionRule {
  return { table: 'request_nonces', column: 'expires_at', windowMs: 0, lifetimeMs, index: { kind: 'btree' }, intervalMs };
}

interface NonceUse {
  keyId: string;
  nonce: string;
  now: Date;
  expiresAt: Date;
}

// A row that expired but was not purged yet does not count as a use: it is taken over.
const RECORD_MANY_SQL = `
  INSERT INTO request_nonces (key_id, nonce, expires_at)
  SELECT u.key_id, u.nonce, u.expires_at
  FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS timestamptz[])) AS u(key_id, nonce, expires_at, now)
  ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
  WHERE request_nonces.expires_at <= (SELECT max(n.now) FROM unnest(CAST(? AS timestamptz[])) AS n(now))
  RETURNING key_id, nonce`;

export function createNonceStore(db: Db): NonceStore {
  // The signed requests that arrive in one event-loop turn record their nonces in one statement
  // and one commit; each request still learns whether its own nonce was new.
  const recordUses = microBatch<NonceUse, boolean>(
    async (uses) => {
      // A nonce twice in one batch: the first is the use, the second a replay (and one statement
      // cannot insert and update the same row twice).
      const seen = new Set<string>();
      const first = uses.map((use) => {
        const name = `${use.keyId}\u0000${use.nonce}`;
        if (seen.has(name)) return false;
        seen.add(name);
        return true;
      });
      const written = uses.filter((_use, index) => first[index]);
      const result = await prepared<{ rows: Array<{ key_id: string; nonce: string }> }>(db, RECORD_MANY_SQL, [
        written.map((use) => use.keyId),
        written.map((use) => use.nonce),
        written.map((use) => use.expiresAt.toISOString()),
        written.map((use) => use.now.toISOString()),
        written.map((use) => use.now.toISOString()),
      ] as unknown as Knex.RawBinding[]);
      const recorded = new Set(result.rows.map((row) => `${row.key_id}\u0000${row.nonce}`));
      return uses.map((use, index) => first[index] === true && recorded.has(`${use.keyId}\u0000${use.nonce}`));
    },
    { concurrency: STATEMENT_BATCH_CONCURRENCY },
  );

  return {
    recordFirstUse: (keyId, nonce, now, expiresAt) => recordUses({ keyId, nonce, now, expiresAt }),
  };
}
