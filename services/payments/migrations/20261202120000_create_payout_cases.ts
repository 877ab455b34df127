import type { Knex } from 'knex';
import { MAKER_CHECKER_CASE_CHECKS, makerCheckerCaseColumns } from '@wallet/money-commands';

export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- A wallet payout under maker-checker; makerCheckerCaseColumns says what its row records.
    CREATE TABLE payout_cases (
      seq                      bigserial NOT NULL,
      id                       text PRIMARY KEY,
      tenant_id                text NOT NULL,
      environment              text NOT NULL CHECK (environment IN ('test', 'live')),
      wallet_id                text NOT NULL REFERENCES wallets (id),
      currency_code            text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      amount                   numeric NOT NULL CHECK (amount > 0),
      fee                      numeric NOT NULL CHECK (fee >= 0),
      commission               numeric NOT NULL CHECK (commission >= 0 AND commission <= fee),
      fee_schedule_id          text,
      fee_rule_id              text,
      platform_commission_bps  integer NOT NULL CHECK (platform_commission_bps BETWEEN 0 AND 10000),
      ${makerCheckerCaseColumns({ payoutMethods: ['momo', 'bank'], statuses: ['pending', 'approved', 'rejected', 'completed', 'failed'] })}
      created_at               timestamptz NOT NULL DEFAULT now(),
      ${MAKER_CHECKER_CASE_CHECKS}
    );
    CREATE INDEX payout_cases_tenant_seq ON payout_cases (tenant_id, environment, seq DESC);
    CREATE INDEX payout_cases_wallet_seq ON payout_cases (wallet_id, seq DESC);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE payout_cases');
}
