import type { Knex } from 'knex';
import { MAKER_CHECKER_CASE_CHECKS, makerCheckerCaseColumns } from '@wallet/money-commands';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- A tenant withdrawal under maker-checker; makerCheckerCaseColumns says what its row records.
    CREATE TABLE withdrawals (
      seq                    bigserial NOT NULL UNIQUE,
      id                     text PRIMARY KEY,
      tenant_id              text NOT NULL,
      environment            text NOT NULL CHECK (environment IN ('test', 'live')),
      source                 text NOT NULL CHECK (source IN ('tenant_fees', 'operating_float')),
      currency_code          text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      amount                 numeric NOT NULL CHECK (amount > 0),
      ${makerCheckerCaseColumns({ payoutMethods: ['momo', 'bank', 'cash'], statuses: ['pending', 'approved', 'rejected', 'failed'] })}
      created_at             timestamptz NOT NULL,
      ${MAKER_CHECKER_CASE_CHECKS}
    );
    CREATE INDEX withdrawals_scope_seq ON withdrawals (tenant_id, environment, seq DESC);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE withdrawals');
}
