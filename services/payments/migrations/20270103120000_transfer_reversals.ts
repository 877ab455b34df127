import type { Knex } from 'knex';

/**
 * Transfer reversals, and what each transfer has given back so far. `reversed_amount` and
 * `refunded_fee` are the sums over the transfer's reversals not refused by the ledger: a
 * reversal's creating statement claims its share on the transfer's row (never past the amount,
 * the fee at most once) and the ledger's refusal gives it back, so concurrent reversals cannot
 * together pass the transfer.
 */
export const transaction = false;

export async function up(db: Knex): Promise<void> {
  // The columns' constant default costs no rewrite; the check is added unchecked and then
  // validated, which reads every transfer without holding off their writers.
  await db.raw(`
    ALTER TABLE transfers ADD COLUMN IF NOT EXISTS reversed_amount numeric NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS refunded_fee numeric NOT NULL DEFAULT 0;
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'transfers_reversed_within') THEN
        ALTER TABLE transfers ADD CONSTRAINT transfers_reversed_within
          CHECK (reversed_amount >= 0 AND reversed_amount <= amount AND refunded_fee >= 0 AND refunded_fee <= fee) NOT VALID;
      END IF;
    END $$;
  `);
  await db.raw('ALTER TABLE transfers VALIDATE CONSTRAINT transfers_reversed_within');
  await db.raw(`
    CREATE TABLE IF NOT EXISTS transfer_reversals (
      seq                  bigserial NOT NULL,
      id                   text PRIMARY KEY,
      tenant_id            text NOT NULL,
      environment          text NOT NULL CHECK (environment IN ('test', 'live')),
      transfer_id          text NOT NULL REFERENCES transfers (id),
      currency_code        text NOT NULL CHECK (currency_code ~ '^[A-Z]{3}$'),
      amount               numeric NOT NULL CHECK (amount > 0),
      -- The transfer's fee handed back (0 without refundFee), of which commission_refunded was the platform's.
      fee_refunded         numeric NOT NULL CHECK (fee_refunded >= 0),
      commission_refunded  numeric NOT NULL CHECK (commission_refunded >= 0 AND commission_refunded <= fee_refunded),
      reason               text NOT NULL,
      status               text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
      journal_entry_id     text,
      failure_code         text,
      created_at           timestamptz NOT NULL DEFAULT now(),
      finished_at          timestamptz,
      CHECK ((status = 'pending' AND journal_entry_id IS NULL AND failure_code IS NULL AND finished_at IS NULL)
          OR (status = 'completed' AND journal_entry_id IS NOT NULL AND failure_code IS NULL AND finished_at IS NOT NULL)
          OR (status = 'failed' AND journal_entry_id IS NULL AND failure_code IS NOT NULL AND finished_at IS NOT NULL))
    );
    CREATE INDEX IF NOT EXISTS transfer_reversals_scope_seq ON transfer_reversals (tenant_id, environment, seq);
    CREATE INDEX IF NOT EXISTS transfer_reversals_transfer_seq ON transfer_reversals (transfer_id, seq);
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    DROP TABLE IF EXISTS transfer_reversals;
    ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_reversed_within, DROP COLUMN IF EXISTS reversed_amount, DROP COLUMN IF EXISTS refunded_fee;
  `);
}
