import type { Knex } from 'knex';

/**
 * E-mails to the members who may decide a maker-checker case (docs/decisions/approval-policies.md):
 * written with the audit record that tells of the case, sent after, a row deleted once sent or
 * given up. Only what is still to send is kept.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE review_notices (
      id              bigserial PRIMARY KEY,
      tenant_id       text NOT NULL,
      environment     text NOT NULL CHECK (environment IN ('test', 'live')),
      case_type       text NOT NULL,
      case_id         text NOT NULL,
      -- What happened to the case: it was requested, or its first of two approvals was given.
      event           text NOT NULL CHECK (event IN ('requested', 'approval_recorded')),
      requested_by    text NOT NULL,
      approved_by     text,
      approver_role   text,
      amount          numeric,
      currency_code   text,
      attempts        integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX review_notices_due ON review_notices (next_attempt_at);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE review_notices');
}
