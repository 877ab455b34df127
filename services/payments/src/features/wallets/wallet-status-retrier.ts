import type { Logger } from '@wallet/kit';
import type { WalletStatusService } from './wallet-status-service';

/** Changes re-sent per pass at most. */
const BATCH_SIZE_MAX = 50;

/**
 * Every interval, re-sends the wallet status changes nobody is waiting for any more, so that a
 * change the ledger applied after its requester's deadline is recorded in payments too.
 */
export class WalletStatusRetrier {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: {
      statuses: WalletStatusService;
      /** Time between passes. */
      intervalMs: number;
      /** A change younger than this may still have its requester waiting: left to it. */
      graceMs: number;
      logger: Logger;
    },
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.runPass().finally(() => {
        this.pass = null;
        this.schedule();
      });
    }, this.deps.intervalMs);
  }

  private async runPass(): Promise<void> {
    try {
      const settled = await this.deps.statuses.settleAbandoned(new Date(Date.now() - this.deps.graceMs), BATCH_SIZE_MAX);
      if (settled > 0) this.deps.logger.info({ settled }, 'wallet status changes settled after their deadline');
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'wallet status retry pass failed');
    }
  }
}
