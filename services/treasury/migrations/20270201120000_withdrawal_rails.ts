import type { Knex } from 'knex';

/**
 * Delivery of approved withdrawals through a rail, as payouts are delivered (payments'
 * 20261216120000_create_payout_rails and 20270115120000_payout_rail_leases): a case settled into
 * payout clearing goes to the rail and ends `completed` or `failed`, with its outcome's entry.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    -- rail_started_at marks that an approved case went to the rail at least once: one approved
    -- with it set and no outcome was interrupted between the rail's answer and its recording, and
    -- is asked again under the same idempotency key. rail_lease_until: which instance delivers it,
    -- until when.
    ALTER TABLE withdrawals
      ADD COLUMN rail_started_at      timestamptz,
      ADD COLUMN rail_lease_until     timestamptz,
      ADD COLUMN rail_reference       text,
      ADD COLUMN rail_failure_reason  text,
      ADD COLUMN outcome_entry_id     text,
      ADD COLUMN outcome_failure_code text,
      DROP CONSTRAINT withdrawals_status_check,
      ADD CONSTRAINT withdrawals_status_check CHECK (status IN ('pending', 'approved', 'rejected', 'completed', 'failed')),
      ADD CONSTRAINT withdrawals_rail_outcome CHECK (status NOT IN ('completed', 'failed') OR hold_entry_id IS NULL OR rail_reference IS NOT NULL);
    CREATE INDEX withdrawals_approved ON withdrawals (seq) WHERE status = 'approved';

    -- The sandbox rail's own memory, standing in for a provider's idempotency store: the first
    -- outcome per case is kept, so a repeated delivery is answered from here and pays nothing.
    CREATE TABLE sandbox_rail_deliveries (
      case_id         text PRIMARY KEY,
      destination     jsonb NOT NULL,
      amount          numeric NOT NULL CHECK (amount > 0),
      currency_code   text NOT NULL,
      status          text NOT NULL CHECK (status IN ('succeeded', 'failed')),
      rail_reference  text NOT NULL,
      failure_reason  text,
      calls           integer NOT NULL DEFAULT 1 CHECK (calls >= 1),
      delivered_at    timestamptz NOT NULL DEFAULT now(),
      last_called_at  timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    DROP TABLE sandbox_rail_deliveries;
    DROP INDEX withdrawals_approved;
    ALTER TABLE withdrawals DROP CONSTRAINT withdrawals_rail_outcome,
      DROP CONSTRAINT withdrawals_status_check,
      ADD CONSTRAINT withdrawals_status_check CHECK (status IN ('pending', 'approved', 'rejected', 'failed')),
      DROP COLUMN rail_started_at, DROP COLUMN rail_lease_until, DROP COLUMN rail_reference, DROP COLUMN rail_failure_reason,
      DROP COLUMN outcome_entry_id, DROP COLUMN outcome_failure_code;
  `);
}
