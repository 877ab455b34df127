import type { Knex } from 'knex';

/**
 * Nonces of signed requests, per key. Shared by every gateway instance, so a request replayed
 * against another instance is still refused. The primary key is what makes "first use" atomic.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('request_nonces', (table) => {
    table.text('key_id').notNullable();
    table.text('nonce').notNullable();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.primary(['key_id', 'nonce']);
    table.index(['expires_at'], 'request_nonces_expires_at_idx');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('request_nonces');
}
