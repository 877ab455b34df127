import { type LedgerEntriesPostedV1, ledgerEntriesPostedV1Schema } from '@wallet/contracts';
import {
  applyDeliveryBatch,
  type Broker,
  type Channel,
  type ConsumeMessage,
  type Db,
  type Logger,
  runWithContext,
  type ServiceMetrics,
} from '@wallet/kit';
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
  /** Applies what has gathered, gives up a batch still retrying through an outage (redelivered later) and waits (shutdown). */
  stop(): Promise<void>;
}

function deadLetter(logger: Logger, message: ConsumeMessage, channel: Channel): void {
  try {
    channel.nack(message, false, false);
  } catch (error) {
    logger.warn({ err: error }, 'analytics event could not be dead-lettered; it will be redelivered');
  }
}

/**
 * Feeds the read models from `ledger.entries-posted.v1`. Deliveries are gathered into batches
 * applied in one transaction each, and acknowledged only after it commits; the entry claims make
 * a redelivery or a duplicate event change nothing. A database outage stalls the batch, retried
 * until it is applied, at no delivery attempt's cost: a lost event would leave the read models
 * short of the journal for good. An event that fails by itself is requeued alone
 * (applyDeliveryBatch), and the queue's delivery limit parks it in the dead-letter queue.
 */
export async function startAnalyticsConsumer(options: AnalyticsConsumerOptions): Promise<AnalyticsConsumer> {
  const batchSizeMax = options.batchSizeMax ?? 64;
  // Read models may trail the journal by a moment; a longer gathering makes fewer, larger transactions.
  const lingerMs = options.lingerMs ?? 100;
  const applied = options.metrics.counter('treasury_analytics_entries_total', 'Ledger entries seen by the analytics read models', [
    'outcome',
  ]);
  let gathering: Delivery[] = [];
  let timer: NodeJS.Timeout | null = null;
  // One batch at a time: batches of one instance would only contend for the same rows.
  let applying: Promise<void> = Promise.resolve();
  /** Aborted by stop(): a batch still retrying through an outage is left unacknowledged for redelivery. */
  const stopping = new AbortController();

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = gathering;
    gathering = [];
    if (batch.length > 0) applying = applying.then(() => apply(batch));
  }

  async function apply(batch: Delivery[]): Promise<void> {
    await runWithContext({ correlationId: `analytics:${batch[0]?.event.entries[0]?.journalEntryId ?? 'batch'}` }, async () => {
      await applyDeliveryBatch(
        batch,
        async (deliveries) => {
          const entries = deliveries.flatMap((delivery) => delivery.event.entries);
          const fresh = await options.db.transaction((tx) => applyEntries(tx, entries));
          applied.inc({ outcome: 'applied' }, fresh);
          applied.inc({ outcome: 'duplicate' }, entries.length - fresh);
        },
        { logger: options.logger, what: 'analytics batch', signal: stopping.signal },
      );
    });
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
        deadLetter(options.logger, message, channel);
        return;
      }
      gathering.push({ message, channel, event });
      if (gathering.length >= batchSizeMax) flush();
      else timer ??= setTimeout(flush, lingerMs).unref();
    },
  });

  return {
    async stop() {
      stopping.abort();
      flush();
      await applying;
    },
  };
}
