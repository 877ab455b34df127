import type { Knex } from 'knex';

/**
 * A case's type in analytics_cases is checked for its shape, not against a list: the case types
 * are contracts' CASE_TYPES, and the projection makes rows only for their kinds, so a new case
 * type needs no migration here (docs/decisions/maker-checker.md).
 */
export const transaction = false;

export async function up(db: Knex): Promise<void> {
  // Added unchecked and then validated, which reads every case without holding off the projection's writes.
  await db.raw(`
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'analytics_cases_case_type_shape') THEN
        ALTER TABLE analytics_cases ADD CONSTRAINT analytics_cases_case_type_shape CHECK (case_type ~ '^[a-z][a-z_]*$') NOT VALID;
      END IF;
    END $$;
  `);
  await db.raw('ALTER TABLE analytics_cases VALIDATE CONSTRAINT analytics_cases_case_type_shape');
  await db.raw('ALTER TABLE analytics_cases DROP CONSTRAINT IF EXISTS analytics_cases_case_type_check');
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    ALTER TABLE analytics_cases DROP CONSTRAINT IF EXISTS analytics_cases_case_type_shape;
    ALTER TABLE analytics_cases ADD CONSTRAINT analytics_cases_case_type_check CHECK (case_type IN ('payout', 'withdrawal'));
  `);
}
