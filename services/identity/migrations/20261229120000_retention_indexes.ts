import type { Knex } from 'knex';
import { createInboxRetentionIndex } from '@wallet/kit';

/** What the retention purge finds old rows by: the inbox's processing time, and sessions' expiry (one row per login). */
export async function up(db: Knex): Promise<void> {
  await createInboxRetentionIndex(db);
  await db.raw('CREATE INDEX IF NOT EXISTS sessions_expires_at ON sessions (expires_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS inbox_processed_at_brin, sessions_expires_at');
}
