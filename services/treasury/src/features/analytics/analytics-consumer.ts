import { type LedgerEntriesPostedV1, ledgerEntriesPostedV1Schema } from '@wallet/contracts';
import { type BatchConsumer, type Broker, type Db, type Logger, type ServiceMetrics, startBatchConsumer } from '@wallet/kit';
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

export type AnalyticsConsumer = BatchConsumer;

/**
 * Feeds the read models from `ledger.entries-posted.v1`, in batches applied in one transaction
 * each (kit's startBatchConsumer); the entry claims make a redelivery or a duplicate event change
 * nothing. A database outage stalls the batch until it is applied: a lost event would leave the
 * read models short of the journal for good.
 */
export async function startAnalyticsConsumer(options: AnalyticsConsumerOptions): Promise<AnalyticsConsumer> {
  const applied = options.metrics.counter('treasury_analytics_entries_total', 'Ledger entries seen by the analytics read models', [
    'outcome',
  ]);
  return startBatchConsumer<LedgerEntriesPostedV1>({
    broker: options.broker,
    logger: options.logger,
    queue: options.queue,
    what: 'analytics batch',
    batchSizeMax: options.batchSizeMax ?? 64,
    // Read models may trail the journal by a moment; a longer gathering makes fewer, larger transactions.
    lingerMs: options.lingerMs ?? 100,
    parse: (content) => {
      const parsed = ledgerEntriesPostedV1Schema.safeParse(JSON.parse(content.toString('utf8')));
      return parsed.success ? parsed.data : null;
    },
    correlationIdOf: (event) => `analytics:${event.entries[0]?.journalEntryId ?? 'batch'}`,
    apply: async (events) => {
      const entries = events.flatMap((event) => event.entries);
      const fresh = await options.db.transaction((tx) => applyEntries(tx, entries));
      applied.inc({ outcome: 'applied' }, fresh);
      applied.inc({ outcome: 'duplicate' }, entries.length - fresh);
    },
  });
}
