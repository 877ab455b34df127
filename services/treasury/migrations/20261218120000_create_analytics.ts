import type { Knex } from 'knex';

// The analytics read models, fed by the ledger's entries-posted events. Amounts are NUMERIC:
// money never passes through a float. An entry is applied once: its id is claimed in
// analytics_entries in the same transaction as the increments it causes.
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE analytics_entries (
      journal_entry_id text PRIMARY KEY,
      tenant_id text NOT NULL,
      environment text NOT NULL,
      kind text NOT NULL,
      posted_at timestamptz NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  await db.raw('CREATE INDEX analytics_entries_posted_at ON analytics_entries (posted_at DESC)');
  await db.raw('CREATE INDEX analytics_entries_scope_posted_at ON analytics_entries (tenant_id, environment, posted_at DESC)');
  await db.raw(`
    CREATE TABLE analytics_daily (
      tenant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      currency_code text NOT NULL,
      day date NOT NULL,
      kind text NOT NULL,
      entry_count bigint NOT NULL DEFAULT 0,
      volume numeric NOT NULL DEFAULT 0,
      fee_revenue numeric NOT NULL DEFAULT 0,
      platform_commission numeric NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, environment, currency_code, day, kind)
    )`);
  await db.raw('CREATE INDEX analytics_daily_environment_day ON analytics_daily (environment, day)');
  await db.raw(`
    CREATE TABLE analytics_account_classes (
      tenant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      currency_code text NOT NULL,
      account_class text NOT NULL,
      debits numeric NOT NULL DEFAULT 0,
      credits numeric NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, environment, currency_code, account_class)
    )`);
  // A case is pending while it has a hold and no outcome; either may arrive first.
  await db.raw(`
    CREATE TABLE analytics_cases (
      tenant_id text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      case_type text NOT NULL CHECK (case_type IN ('payout', 'withdrawal')),
      case_id text NOT NULL,
      currency_code text NOT NULL,
      held_amount numeric NOT NULL DEFAULT 0,
      resolved boolean NOT NULL DEFAULT false,
      PRIMARY KEY (tenant_id, environment, case_type, case_id, currency_code)
    )`);
  await db.raw('CREATE INDEX analytics_cases_pending ON analytics_cases (tenant_id, environment) WHERE NOT resolved');
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['analytics_cases', 'analytics_account_classes', 'analytics_daily', 'analytics_entries'])
    await db.schema.dropTableIfExists(table);
}
