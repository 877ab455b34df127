import { type LedgerResultV1, ledgerResultV1Schema } from '@wallet/contracts';
import { type Broker, type Db, type Logger, runWithContext, type Tx } from '@wallet/kit';
import { PAYMENTS_TOPOLOGY } from '../../topology';

/**
 * Records the ledger's result on the business record a posting was made for, in `tx`. It must
 * be idempotent: conditional on the record still being pending (UPDATE ... WHERE status =
 * 'pending'), so the reply path, the event path and redeliveries finish it exactly once.
 */
export type PostingFinisher = (tx: Tx, result: LedgerResultV1) => Promise<void>;

/** Finishers by the `reference.type` their postings carry ('transfer', 'deposit', ...). */
export class PostingFinishers {
  private readonly byType = new Map<string, PostingFinisher>();

  register(referenceType: string, finisher: PostingFinisher): void {
    if (this.byType.has(referenceType)) throw new Error(`a posting finisher for ${referenceType} is registered already`);
    this.byType.set(referenceType, finisher);
  }

  of(referenceType: string): PostingFinisher | undefined {
    return this.byType.get(referenceType);
  }
}

export interface LedgerEventsConsumerOptions {
  broker: Broker;
  db: Db;
  logger: Logger;
  finishers: PostingFinishers;
  /** Told every result once it is recorded, so a caller of this instance still waiting gets it. */
  onFinished?: (result: LedgerResultV1) => void;
  prefetch?: number;
}

/**
 * Consumes `ledger.posted` / `ledger.rejected` from payments' shared durable queue and finishes
 * the record each names, for whichever instance's caller missed the reply (deadline, crash,
 * reply queue lost). Results for reference types no finisher is registered for (other services'
 * postings) are acknowledged and ignored. Finishers are conditional updates, so a redelivery
 * changes nothing: no inbox row is needed per event. A finisher that throws has its event
 * requeued; the queue's delivery limit parks it in the dead-letter queue if it keeps failing.
 */
export async function startLedgerEventsConsumer(options: LedgerEventsConsumerOptions): Promise<void> {
  await options.broker.consume({
    queue: PAYMENTS_TOPOLOGY.ledgerEvents.queue,
    prefetch: options.prefetch ?? 64,
    onMessage: async (raw, channel) => {
      let result: LedgerResultV1;
      try {
        const parsed = ledgerResultV1Schema.safeParse(JSON.parse(raw.content.toString('utf8')));
        if (!parsed.success) throw parsed.error;
        result = parsed.data;
      } catch (error) {
        options.logger.error({ err: error }, 'malformed ledger event dead-lettered');
        channel.nack(raw, false, false);
        return;
      }
      const finisher = result.reference ? options.finishers.of(result.reference.type) : undefined;
      if (!finisher) {
        channel.ack(raw);
        return;
      }
      const correlationId = (raw.properties.correlationId as string | undefined) ?? result.commandId;
      await runWithContext({ correlationId }, async () => {
        try {
          await options.db.transaction((tx) => finisher(tx, result));
          channel.ack(raw);
        } catch (error) {
          options.logger.warn({ err: error, commandId: result.commandId }, 'ledger event not recorded; requeued');
          channel.nack(raw, false, true);
          return;
        }
        options.onFinished?.(result);
      });
    },
  });
}
