import type { Knex } from 'knex';

/**
 * Approval policies (docs/decisions/approval-policies.md): per tenant, environment, case type and
 * currency, above which amount a case needs two approvers or an approver of a named role. A case
 * keeps the requirement it was opened under, and its first of two approvals until the second.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    ALTER TABLE payout_cases
      ADD COLUMN approvals_required smallint NOT NULL DEFAULT 1 CHECK (approvals_required IN (1, 2)),
      ADD COLUMN approver_role      text,
      ADD COLUMN first_approved_by  text,
      ADD COLUMN first_approved_at  timestamptz,
      ADD CONSTRAINT payout_cases_first_approval CHECK (first_approved_by IS NULL OR (approvals_required = 2 AND first_approved_at IS NOT NULL));

    -- Who set a case type's policy last, and when: one row per policy, locked while it is replaced.
    CREATE TABLE approval_policies (
      tenant_id   text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      case_type   text NOT NULL,
      updated_by  text NOT NULL,
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, environment, case_type)
    );

    CREATE TABLE approval_policy_rules (
      tenant_id          text NOT NULL,
      environment        text NOT NULL,
      case_type          text NOT NULL,
      currency_code      text NOT NULL,
      above_amount       numeric NOT NULL CHECK (above_amount >= 0),
      approvals_required smallint NOT NULL CHECK (approvals_required IN (1, 2)),
      approver_role      text,
      CHECK (approvals_required = 2 OR approver_role IS NOT NULL),
      PRIMARY KEY (tenant_id, environment, case_type, currency_code),
      FOREIGN KEY (tenant_id, environment, case_type) REFERENCES approval_policies ON DELETE CASCADE
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    DROP TABLE approval_policy_rules;
    DROP TABLE approval_policies;
    ALTER TABLE payout_cases
      DROP CONSTRAINT payout_cases_first_approval,
      DROP COLUMN first_approved_at,
      DROP COLUMN first_approved_by,
      DROP COLUMN approver_role,
      DROP COLUMN approvals_required;
  `);
}
