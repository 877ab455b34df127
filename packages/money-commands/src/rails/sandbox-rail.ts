import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '@wallet/contracts';
import { type Db, prepared } from '@wallet/kit';
import { payeeOf, type PayoutRail, type RailDelivery, type RailOutcome } from './payout-rail';

/** The deterministic rule of the sandbox: these destinations are refused, all others paid. */
export const SANDBOX_FAILING_SUFFIX = '0000';
export const SANDBOX_FAILURE_REASON = 'Sandbox: destinations ending in 0000 are refused';

export interface SandboxDelivery {
  caseId: string;
  status: 'succeeded' | 'failed';
  railReference: string;
  failureReason: string | null;
  /** Every deliver() call for the case, the first included. */
  calls: number;
}

interface DeliveryRow {
  case_id: string;
  status: 'succeeded' | 'failed';
  rail_reference: string;
  failure_reason: string | null;
  calls: number;
}

/**
 * A rail that pays nobody. Its memory is a table in the database of the service that delivers
 * (payments for payouts, treasury for withdrawals), so the first outcome per case survives a
 * restart just as a real provider's idempotency store would.
 */
export class SandboxRail implements PayoutRail {
  constructor(private readonly options: { db: Db; delayMs: number }) {}

  async deliver(delivery: RailDelivery): Promise<RailOutcome> {
    if (this.options.delayMs > 0) await sleep(this.options.delayMs);
    const fails = payeeOf(delivery.destination).endsWith(SANDBOX_FAILING_SUFFIX);
    // One statement: concurrent calls for one case agree on the first outcome and each is counted.
    const result = await prepared<{ rows: DeliveryRow[] }>(
      this.options.db,
      `INSERT INTO sandbox_rail_deliveries (case_id, destination, amount, currency_code, status, rail_reference, failure_reason)
       VALUES (?, CAST(? AS jsonb), CAST(? AS numeric), ?, ?, ?, ?)
       ON CONFLICT (case_id) DO UPDATE SET calls = sandbox_rail_deliveries.calls + 1, last_called_at = now()
       RETURNING case_id, status, rail_reference, failure_reason, calls`,
      [
        delivery.caseId,
        JSON.stringify(delivery.destination),
        delivery.amount,
        delivery.currencyCode,
        fails ? 'failed' : 'succeeded',
        `sbx_${newId('payoutCase').slice(3)}`,
        fails ? SANDBOX_FAILURE_REASON : null,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`sandbox rail recorded nothing for ${delivery.caseId}`);
    return row.status === 'succeeded'
      ? { status: 'succeeded', railReference: row.rail_reference }
      : { status: 'failed', railReference: row.rail_reference, failureReason: row.failure_reason ?? SANDBOX_FAILURE_REASON };
  }

  async deliveryOf(caseId: string): Promise<SandboxDelivery | null> {
    const row: DeliveryRow | undefined = await this.options
      .db('sandbox_rail_deliveries')
      .where({ case_id: caseId })
      .first(['case_id', 'status', 'rail_reference', 'failure_reason', 'calls']);
    return row
      ? { caseId: row.case_id, status: row.status, railReference: row.rail_reference, failureReason: row.failure_reason, calls: row.calls }
      : null;
  }
}
