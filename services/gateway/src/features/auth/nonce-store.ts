import { type Db, prepared } from '@wallet/kit';

/** The only SQL of the gateway: nonces of signed requests, shared by every instance. */
export interface NonceStore {
  /** True when this nonce of this key was not in use (or its record had expired): it is now. */
  recordFirstUse(keyId: string, nonce: string, now: Date, expiresAt: Date): Promise<boolean>;
  /** Deletes records that expired before `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}

export function createNonceStore(db: Db): NonceStore {
  return {
    async recordFirstUse(keyId, nonce, now, expiresAt) {
      // A row that expired but was not purged yet does not count as a use: it is taken over.
      const result = await prepared<{ rows: unknown[] }>(
        db,
        `INSERT INTO request_nonces (key_id, nonce, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
         WHERE request_nonces.expires_at <= ?
         RETURNING key_id`,
        [keyId, nonce, expiresAt, now],
      );
      return result.rows.length === 1;
    },
    async purgeExpired(now) {
      return db('request_nonces').where('expires_at', '<', now).delete();
    },
  };
}
