import { type Db, enqueueOutbox, type Logger, type OutboxRelay } from '@wallet/kit';
import { postingMessage } from '@wallet/money-commands';
import { payoutPostCommand } from '../payout-posting';
import { type DeliverableCase, deliverableCases, markRailStarted, recordRailResult } from '../payouts-store';
import type { PayoutRail, RailOutcome } from './payout-rail';

/** Thrown by the test hook: stands for the process dying between the rail's answer and its recording. */
export class SimulatedCrashError extends Error {}

export interface PayoutDeliveryOptions {
  db: Db;
  relay: OutboxRelay;
  rail: PayoutRail;
  logger: Logger;
  /** Pause between rounds; 0 turns delivery off. */
  intervalMs: number;
  batchSize: number;
  /** How long a round holds its cases from other instances' rounds; a crashed instance's cases wait this long. */
  leaseMs: number;
  /** Test hook: after the rail answered and before recording, stop as a crashed process would. */
  crashAfterRail?: boolean;
}

/**
 * Delivers approved payouts through the rail and records each outcome with its posting (complete
 * or fail) in one transaction. The case id is the rail's idempotency key, so a case whose answer
 * was lost (crash, restart) is simply delivered again once its lease runs out: the rail answers
 * the first outcome and pays once, and the recording is conditional on the case still being
 * approved, so the step is posted once. A round leases its cases, so instances deliver different ones.
 */
export class PayoutDelivery {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: PayoutDeliveryOptions) {}

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
    for (const payout of await deliverableCases(this.options.db, this.options.batchSize, this.options.leaseMs)) {
      if (this.stopped) break;
      if (await this.deliver(payout)) recorded += 1;
    }
    if (recorded > 0) this.options.relay.wake();
    return recorded;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .then(
          () => this.schedule(),
          (error: unknown) => {
            if (error instanceof SimulatedCrashError) {
              this.stopped = true;
              this.options.logger.warn({ err: error }, 'payout delivery stopped by its test hook');
              return;
            }
            this.options.logger.error({ err: error }, 'payout delivery round failed');
            this.schedule();
          },
        )
        .finally(() => {
          this.running = null;
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async deliver(payout: DeliverableCase): Promise<boolean> {
    if (!payout.railStartedAt) await markRailStarted(this.options.db, payout.id);
    const outcome = await this.options.rail.deliver({
      caseId: payout.id,
      destination: payout.destination,
      amount: payout.amount,
      currencyCode: payout.currencyCode,
    });
    if (this.options.crashAfterRail) throw new SimulatedCrashError(`stopped after the rail answered for ${payout.id}`);
    return this.record(payout, outcome);
  }

  private record(payout: DeliverableCase, outcome: RailOutcome): Promise<boolean> {
    const step = outcome.status === 'succeeded' ? 'complete' : 'fail';
    const command = payoutPostCommand(
      {
        id: payout.id,
        tenantId: payout.tenantId,
        environment: payout.environment,
        walletId: payout.walletId,
        walletOwnerId: payout.walletOwnerId,
        currencyCode: payout.currencyCode,
        amount: payout.amount,
        fee: payout.fee,
        commission: payout.commission,
        destination: payout.destination,
      },
      step,
    );
    return this.options.db.transaction(async (tx) => {
      const moved = await recordRailResult(tx, payout.id, {
        status: step === 'complete' ? 'completed' : 'failed',
        railReference: outcome.railReference,
        railFailureReason: outcome.status === 'failed' ? outcome.failureReason : null,
      });
      if (moved) await enqueueOutbox(tx, [postingMessage(command)]);
      return moved;
    });
  }
}
