import type { Knex } from 'knex';

/**
 * The reconciliation workbench (docs/decisions/statement-matches.md): matches of a bank slip
 * and a statement line proposed by one member and decided by another, and each tenant's rule for
 * suggesting them. A slip and a line are in one pending match at a time. Suggestions look lines
 * up by bank, currency and amount among the unmatched: their own index, since the exact rule's
 * leads with the reference.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE statement_matches (
      seq               bigserial NOT NULL UNIQUE,
      id                text PRIMARY KEY,
      tenant_id         text NOT NULL,
      environment       text NOT NULL CHECK (environment IN ('test', 'live')),
      deposit_id        text NOT NULL REFERENCES deposits (id),
      line_id           bigint NOT NULL REFERENCES bank_statement_lines (id),
      reason            text NOT NULL,
      proposed_by       text NOT NULL,
      status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
      decided_by        text,
      decided_at        timestamptz,
      rejection_reason  text,
      created_at        timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'pending') = (decided_by IS NULL))
    );
    CREATE INDEX statement_matches_scope_seq ON statement_matches (tenant_id, environment, seq DESC);
    CREATE INDEX statement_matches_pending ON statement_matches (tenant_id, environment, seq DESC) WHERE status = 'pending';
    CREATE UNIQUE INDEX statement_matches_pending_deposit ON statement_matches (deposit_id) WHERE status = 'pending';
    CREATE UNIQUE INDEX statement_matches_pending_line ON statement_matches (line_id) WHERE status = 'pending';

    CREATE TABLE reconciliation_match_rules (
      tenant_id        text NOT NULL,
      environment      text NOT NULL CHECK (environment IN ('test', 'live')),
      reference        text NOT NULL CHECK (reference IN ('exact', 'contains', 'any')),
      date_window_days integer NOT NULL CHECK (date_window_days BETWEEN 0 AND 31),
      updated_by       text NOT NULL,
      updated_at       timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, environment)
    );

    CREATE INDEX bank_statement_lines_unmatched_amount ON bank_statement_lines
      (tenant_id, environment, bank_code, currency_code, amount, line_date) WHERE deposit_id IS NULL;
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    DROP INDEX bank_statement_lines_unmatched_amount;
    DROP TABLE reconciliation_match_rules;
    DROP TABLE statement_matches;
  `);
}
