import type { Knex } from 'knex';
import { createIdempotencyTable, IDEMPOTENCY_TABLE } from '@wallet/kit';

// Amounts are NUMERIC: money never passes through a float. seq orders pages newest first.
export async function up(db: Knex): Promise<void> {
  await createIdempotencyTable(db);
  await db.raw(`
    CREATE TABLE float_deposits (
      seq bigserial UNIQUE,
      id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      currency_code text NOT NULL,
      amount numeric NOT NULL CHECK (amount > 0),
      rail text NOT NULL CHECK (rail IN ('momo', 'bank', 'cash')),
      external_reference text,
      deposited_by text,
      note text,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
      journal_entry_id text,
      failure_code text,
      created_at timestamptz NOT NULL,
      finished_at timestamptz
    )`);
  await db.raw('CREATE INDEX float_deposits_scope_seq ON float_deposits (tenant_id, environment, seq DESC)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('float_deposits');
  await db.schema.dropTableIfExists(IDEMPOTENCY_TABLE);
}
