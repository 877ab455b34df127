import { type LedgerEntriesPostedV1, ledgerEntriesPostedV1Schema } from '@wallet/contracts';
import { type Broker, type Channel, type ConsumeMessage, type Db, type Logger, runWithContext, type ServiceMetrics } from '@wallet/kit';
import { applyEntries } from './analytics-store';

export interface AnalyticsConsumerOptions {
  broker: Broker;
  db: Db;
  logger: Logger;
  metrics: ServiceMetrics;
  queue: string;
  /** Events applied in one transaction at most (each carries up to a hundred entries). */
  batchSizeMax?: number;
  /** How long a batch gathers events before it is applied: a busy ledger then costs one transaction per batch, not per event. */
  lingerMs?: number;
}

interface Delivery {
  message: ConsumeMessage;
  channel: Channel;
  event: LedgerEntriesPostedV1;
}

export interface AnalyticsConsumer {
  /** Resolves when every batch gathered so far is applied (shutdown, tests). */
  idle(): Promise<void>;
}

/**
 * Feeds the read models from `ledger.entries-posted.v1`. Deliveries are gathered into batches
 * applied in one transaction each, and acknowledged only after it commits; the entry claims make
 * a redelivery or a duplicate event change nothing. A batch that fails is requeued whole; the
 * queue's delivery limit parks an event that keeps failing in the dead-letter queue.
 */
export async function startAnalyticsConsumer(options: AnalyticsConsumerOptions): Promise<AnalyticsConsumer> {
  const batchSizeMax = options.batchSizeMax ?? 64;
  // Read models may trail the journal by a moment; a longer gathering makes fewer, larger transactions.
  const lingerMs = options.lingerMs ?? 100;
  const applied = options.metrics.counter('treasury_analytics_entries_total', 'Ledger entries seen by the analytics read models', ['outcome']);
  let gathering: Delivery[] = [];
  let timer: NodeJS.Timeout | null = null;
  // One batch at a time: batches of one instance would only contend for the same rows.
  let applying: Promise<void> = Promise.resolve();

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = gathering;
    gathering = [];
    if (batch.length > 0) applying = applying.then(() => apply(batch));
  }

  async function apply(batch: Delivery[]): Promise<void> {
    const entries = batch.flatMap((delivery) => delivery.event.entries);
    await runWithContext({ correlationId: `analytics:${entries[0]?.journalEntryId ?? 'batch'}` }, async () => {
      let fresh: number;
      try {
        fresh = await options.db.transaction((tx) => applyEntries(tx, entries));
      } catch (error) {
        options.logger.warn({ err: error, events: batch.length }, 'analytics batch not applied; requeued');
        for (const delivery of batch) settle(delivery.message, delivery.channel, 'requeue');
        return;
      }
      applied.inc({ outcome: 'applied' }, fresh);
      applied.inc({ outcome: 'duplicate' }, entries.length - fresh);
      // One ack per channel for the whole batch: batches are applied in arrival order, so every
      // earlier delivery of that channel is settled by now.
      const lastByChannel = new Map<Channel, Delivery>();
      for (const delivery of batch) lastByChannel.set(delivery.channel, delivery);
      for (const last of lastByChannel.values()) settle(last.message, last.channel, 'ack-up-to');
    });
  }

  function settle(message: ConsumeMessage, channel: Channel, how: 'ack-up-to' | 'requeue' | 'dead-letter'): void {
    // A closed channel means the broker redelivers, which the claims make harmless.
    try {
      if (how === 'ack-up-to') channel.ack(message, true);
      else channel.nack(message, false, how === 'requeue');
    } catch (error) {
      options.logger.warn({ err: error }, 'analytics event could not be settled; it will be redelivered');
    }
  }

  await options.broker.consume({
    queue: options.queue,
    prefetch: batchSizeMax * 2,
    onMessage: (message, channel) => {
      let event: LedgerEntriesPostedV1;
      try {
        const parsed = ledgerEntriesPostedV1Schema.safeParse(JSON.parse(message.content.toString('utf8')));
        if (!parsed.success) throw parsed.error;
        event = parsed.data;
      } catch (error) {
        options.logger.error({ err: error }, 'malformed entries-posted event dead-lettered');
        settle(message, channel, 'dead-letter');
        return;
      }
      gathering.push({ message, channel, event });
      if (gathering.length >= batchSizeMax) flush();
      else timer ??= setTimeout(flush, lingerMs).unref();
    },
  });

  return {
    async idle() {
      flush();
      await applying;
    },
  };
}
