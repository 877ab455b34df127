import type { LedgerPostV1 } from '@wallet/contracts';
import { camelCased, type Db, enqueueOutbox, type Logger, type OutboxRelay, prepared, type Tx } from '@wallet/kit';
import type { MoneyRecord } from '../money-command-statement';
import { postingMessage } from '../postings';
import type { PayoutRail, RailDestination, RailOutcome } from './payout-rail';
import type { RailSettings } from './rail-config';
import type { RailStep } from './rail-outcome';
import { SandboxRail } from './sandbox-rail';

/** Thrown by the test hook: stands for the process dying between the rail's answer and its recording. */
export class SimulatedCrashError extends Error {}

/** An approved case the rail has not answered for yet, with what its delivery and its outcome's command need. */
export interface DeliverableCase extends MoneyRecord {
  destination: RailDestination;
  railStartedAt: Date | null;
}

/**
 * A case type delivered through a rail. Its table has the flow's state and the rail's columns
 * (`rail_started_at`, `rail_lease_until`, `rail_reference`, `rail_failure_reason`, and
 * CASE_RAIL_COLUMNS' outcome columns).
 */
export interface DeliveredCases<Case extends DeliverableCase> {
  table: string;
  /** The case in logs ('payout', 'withdrawal'). */
  noun: string;
  /**
   * What a leased case reads besides what every one does (its id, scope, currency, amount,
   * destination and rail start): columns of its row `c`, and of what `join` adds to it.
   */
  read: { columns: readonly string[]; join?: string };
  /** The command of the rail's outcome on the case. */
  command(deliverable: Case, step: RailStep): LedgerPostV1;
}

export interface CaseDeliveryOptions<Case extends DeliverableCase> {
  db: Db;
  relay: OutboxRelay;
  rail: PayoutRail;
  logger: Logger;
  cases: DeliveredCases<Case>;
  /** Pause between rounds; 0 turns delivery off. */
  intervalMs: number;
  batchSize: number;
  /** How long a round holds its cases from other instances' rounds; a crashed instance's cases wait this long. */
  leaseMs: number;
  /** Test hook: after the rail answered and before recording, stop as a crashed process would. */
  crashAfterRail?: boolean;
}

/**
 * Delivers approved cases through the rail and records each outcome with its posting (complete
 * or fail) in one transaction. The case id is the rail's idempotency key, so a case whose answer
 * was lost (crash, restart) is simply delivered again once its lease runs out: the rail answers
 * the first outcome and pays once, and the recording is conditional on the case still being
 * approved, so the step is posted once. A round leases its cases, so instances deliver different ones.
 */
export class CaseDelivery<Case extends DeliverableCase> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly leaseSql: string;

  constructor(private readonly options: CaseDeliveryOptions<Case>) {
    this.leaseSql = leaseStatement(options.cases);
  }

  start(): void {
    if (this.options.intervalMs > 0) this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round over the deliverable cases; the number of outcomes recorded. */
  async round(): Promise<number> {
    let recorded = 0;
    const { db, batchSize, leaseMs } = this.options;
    const leased = await prepared<{ rows: object[] }>(db, this.leaseSql, [leaseMs, batchSize]);
    for (const row of leased.rows) {
      if (this.stopped) break;
      if (await this.deliver(camelCased<Case>(row))) recorded += 1;
    }
    if (recorded > 0) this.options.relay.wake();
    return recorded;
  }

  private schedule(): void {
    if (this.stopped) return;
    const { noun } = this.options.cases;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .then(
          () => this.schedule(),
          (error: unknown) => {
            if (error instanceof SimulatedCrashError) {
              this.stopped = true;
              this.options.logger.warn({ err: error }, `${noun} delivery stopped by its test hook`);
              return;
            }
            this.options.logger.error({ err: error }, `${noun} delivery round failed`);
            this.schedule();
          },
        )
        .finally(() => {
          this.running = null;
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async deliver(deliverable: Case): Promise<boolean> {
    const { table } = this.options.cases;
    if (!deliverable.railStartedAt) {
      // Marks the first attempt; a resumed attempt keeps the first time.
      await prepared(
        this.options.db,
        `UPDATE ${table} SET rail_started_at = coalesce(rail_started_at, now()) WHERE id = ? AND status = 'approved'`,
        [deliverable.id],
      );
    }
    const outcome = await this.options.rail.deliver({
      caseId: deliverable.id,
      destination: deliverable.destination,
      amount: deliverable.amount,
      currencyCode: deliverable.currencyCode,
    });
    if (this.options.crashAfterRail) throw new SimulatedCrashError(`stopped after the rail answered for ${deliverable.id}`);
    return this.record(deliverable, outcome);
  }

  private record(deliverable: Case, outcome: RailOutcome): Promise<boolean> {
    const step: RailStep = outcome.status === 'succeeded' ? 'complete' : 'fail';
    const command = this.options.cases.command(deliverable, step);
    return this.options.db.transaction(async (tx) => {
      const moved = await recordRailResult(tx, this.options.cases.table, deliverable.id, step, outcome);
      if (moved) await enqueueOutbox(tx, [postingMessage(command)]);
      return moved;
    });
  }
}

/**
 * Leases approved cases whose settle the ledger posted (the money is in payout-clearing) and whose
 * rail outcome is not recorded, oldest first: the ones started before and interrupted come first.
 * Another instance's round skips them (SKIP LOCKED while one leases, the lease after), and takes
 * them again once the lease has run out. Binds the lease's milliseconds, then the limit.
 */
function leaseStatement(cases: Pick<DeliveredCases<DeliverableCase>, 'table' | 'read'>): string {
  const { table, read } = cases;
  const columns = [
    'c.id',
    'c.tenant_id',
    'c.environment',
    'c.currency_code',
    'c.amount',
    'c.destination',
    'c.rail_started_at',
    ...read.columns,
  ];
  return `WITH leased AS (
       UPDATE ${table} SET rail_lease_until = clock_timestamp() + CAST(? AS integer) * interval '1 millisecond'
       WHERE id IN (
         SELECT id FROM ${table}
         WHERE status = 'approved' AND decision_entry_id IS NOT NULL AND (rail_lease_until IS NULL OR rail_lease_until < clock_timestamp())
         ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING *
     )
     SELECT ${columns.join(', ')}
     FROM leased c ${read.join ?? ''}
     ORDER BY c.seq`;
}

/**
 * Moves an approved case to the rail's outcome; false when it is not approved any more (another
 * instance recorded it first), and then the caller must not post the step again.
 */
async function recordRailResult(tx: Tx, table: string, id: string, step: RailStep, outcome: RailOutcome): Promise<boolean> {
  const updated = await prepared<{ rowCount: number | null }>(
    tx,
    `UPDATE ${table} SET status = ?, rail_reference = ?, rail_failure_reason = ?, rail_started_at = coalesce(rail_started_at, now())
     WHERE id = ? AND status = 'approved' AND decision_entry_id IS NOT NULL`,
    [step === 'complete' ? 'completed' : 'failed', outcome.railReference, outcome.status === 'failed' ? outcome.failureReason : null, id],
  );
  return (updated.rowCount ?? 0) > 0;
}

/** Starts delivering a case type's approved cases through the rail the settings name (the sandbox, which remembers in `db`). */
export function startCaseDelivery<Case extends DeliverableCase>(
  parts: { db: Db; relay: OutboxRelay; logger: Logger },
  cases: DeliveredCases<Case>,
  settings: RailSettings,
): CaseDelivery<Case> {
  const delivery = new CaseDelivery({
    ...parts,
    cases,
    rail: new SandboxRail({ db: parts.db, delayMs: settings.sandboxDelayMs }),
    intervalMs: settings.intervalMs,
    batchSize: settings.batchSize,
    leaseMs: settings.leaseMs,
    crashAfterRail: settings.crashAfterDelivery === '1',
  });
  delivery.start();
  return delivery;
}
