import type { Channel, ConsumeMessage } from 'amqplib';
import type { PostingAnnouncer } from './announcements';
import { type AnnouncedEvent, ledgerResultBindingKeys, type LedgerResultV1, parseLedgerResults, TOPOLOGY } from '@wallet/contracts';
import {
  applyDeliveryBatch,
  type Broker,
  contextFrom,
  type Db,
  inSpan,
  linksTo,
  type Logger,
  markAnswered,
  publishPlatformEvents,
  runWithContext,
  type Tx,
} from '@wallet/kit';

/**
 * Records the ledger's results on the business records their postings were made for, in `tx`.
 * It must be idempotent: conditional on each record still being pending (UPDATE ... WHERE
 * status = 'pending'), so the reply path, the event path and redeliveries finish it exactly once.
 */
export type PostingFinisher = (tx: Tx, results: readonly LedgerResultV1[]) => Promise<void>;

/** Finishers by the `reference.type` their postings carry ('transfer', 'deposit', ...). */
export class PostingFinishers {
  private readonly byType = new Map<string, PostingFinisher>();
  private readonly announcers = new Map<string, PostingAnnouncer>();

  register(referenceType: string, finisher: PostingFinisher, announcer?: PostingAnnouncer): void {
    if (this.byType.has(referenceType)) throw new Error(`a posting finisher for ${referenceType} is registered already`);
    this.byType.set(referenceType, finisher);
    if (announcer) this.announcers.set(referenceType, announcer);
  }

  of(referenceType: string): PostingFinisher | undefined {
    return this.byType.get(referenceType);
  }

  announcerOf(referenceType: string): PostingAnnouncer | undefined {
    return this.announcers.get(referenceType);
  }

  get referenceTypes(): string[] {
    return [...this.byType.keys()];
  }
}

export interface LedgerEventsConsumerOptions {
  broker: Broker;
  db: Db;
  logger: Logger;
  /** The service's own durable queue bound to the ledger's posted and rejected events. */
  queue: string;
  finishers: PostingFinishers;
  /** Told every result once it is recorded, so a caller of this instance still waiting gets it. */
  onFinished?: (result: LedgerResultV1) => void;
  /**
   * True for a result this instance has recorded already from the ledger's reply (and forgets
   * it then): the event of a command whose caller got its answer in time needs no finisher statement (one delete per batch forgets the commands answered).
   */
  recordedFromReply?: (result: LedgerResultV1) => boolean;
  /** Events recorded in one transaction at most. */
  batchSizeMax?: number;
  /**
   * How long a batch gathers events before it is recorded. Events are the safety net behind the
   * replies: waiting a little lets the reply path finish its records first, so the batch finds
   * them finished and neither waits on the other's row lock.
   */
  lingerMs?: number;
}

interface Delivery {
  message: ConsumeMessage;
  channel: Channel;
  /** The event's results: one (`ledger.result.v1`) or several (`ledger.results.v1`). */
  results: LedgerResultV1[];
}

function finishSpanName(results: readonly LedgerResultV1[]): string {
  return `finish ${[...new Set(results.map((result) => result.reference?.type ?? 'none'))].sort().join(',')}`;
}

/**
 * Records of many requests finish in one transaction: the span continues the first result's
 * trace (its command's) and links to every other's, so each request's trace reaches it.
 */
function finishSpanOptions(results: readonly LedgerResultV1[]): Parameters<typeof inSpan>[1] {
  return { parent: contextFrom(results[0]), links: linksTo(results), attributes: { 'ledger.results': results.length } };
}

/** The results of `deliveries` that have a finisher here, by finisher, minus those recorded from replies. */
function resultsByFinisher(options: LedgerEventsConsumerOptions, deliveries: readonly Delivery[]): Map<PostingFinisher, LedgerResultV1[]> {
  const byFinisher = new Map<PostingFinisher, LedgerResultV1[]>();
  for (const delivery of deliveries) {
    for (const result of delivery.results) {
      const finisher = result.reference ? options.finishers.of(result.reference.type) : undefined;
      if (!finisher || options.recordedFromReply?.(result)) continue;
      const results = byFinisher.get(finisher);
      if (results) results.push(result);
      else byFinisher.set(finisher, [result]);
    }
  }
  return byFinisher;
}

/** The commands of this service the deliveries answer: none of them is sent again (outbox-unanswered). */
function answeredCommands(options: LedgerEventsConsumerOptions, deliveries: readonly Delivery[]): string[] {
  return deliveries.flatMap((delivery) =>
    delivery.results.flatMap((result) => (result.reference && options.finishers.of(result.reference.type) ? [result.commandId] : [])),
  );
}

/** The results of `deliveries` that announce something, by announcer: recorded from replies or not, each is announced here. */
function resultsByAnnouncer(
  options: LedgerEventsConsumerOptions,
  deliveries: readonly Delivery[],
): Map<PostingAnnouncer, LedgerResultV1[]> {
  const byAnnouncer = new Map<PostingAnnouncer, LedgerResultV1[]>();
  for (const delivery of deliveries) {
    for (const result of delivery.results) {
      const announcer = result.reference ? options.finishers.announcerOf(result.reference.type) : undefined;
      if (!announcer) continue;
      const results = byAnnouncer.get(announcer);
      if (results) results.push(result);
      else byAnnouncer.set(announcer, [result]);
    }
  }
  return byAnnouncer;
}

/** The events of the results, read after their finishers ran in the same transaction, so each record shows its outcome. */
async function announcements(tx: Tx, byAnnouncer: Map<PostingAnnouncer, LedgerResultV1[]>): Promise<AnnouncedEvent[]> {
  const events: AnnouncedEvent[] = [];
  for (const [announcer, results] of byAnnouncer) events.push(...(await announcer(tx, results)));
  return events;
}

async function recordResults(options: LedgerEventsConsumerOptions, deliveries: readonly Delivery[]): Promise<void> {
  const answered = answeredCommands(options, deliveries);
  const byFinisher = resultsByFinisher(options, deliveries);
  const byAnnouncer = resultsByAnnouncer(options, deliveries);
  if (byFinisher.size === 0 && byAnnouncer.size === 0) {
    // Recorded from the replies already: only their copies kept for sending again go.
    if (answered.length > 0) await options.db.transaction((tx) => markAnswered(tx, answered));
    return;
  }
  const results = [...new Set([...byFinisher.values(), ...byAnnouncer.values()].flat())];
  const events = await inSpan(finishSpanName(results), finishSpanOptions(results), () =>
    options.db.transaction(async (tx) => {
      for (const [finisher, finished] of byFinisher) await finisher(tx, finished);
      await markAnswered(tx, answered);
      return announcements(tx, byAnnouncer);
    }),
  );
  // After the commit and before the batch is acknowledged (no outbox row to write and delete): a
  // crash or a refused publish in between redelivers the results, which announce the same events again.
  await publishPlatformEvents(options.broker, events);
}

/** Records one batch until it is recorded (or `signal` aborts), then tells `onFinished` of each result recorded here. */
async function recordBatch(
  options: LedgerEventsConsumerOptions,
  record: (deliveries: readonly Delivery[]) => Promise<void>,
  signal: AbortSignal,
  batch: Delivery[],
): Promise<void> {
  const first = batch[0];
  const correlationId = (first?.message.properties.correlationId as string | undefined) ?? first?.results[0]?.commandId ?? 'ledger-events';
  await runWithContext({ correlationId }, async () => {
    const recorded = await applyDeliveryBatch(batch, record, { logger: options.logger, what: 'ledger events batch', signal });
    // Results of reference types without a finisher (another service's postings) were acknowledged with the batch, nothing recorded.
    for (const delivery of recorded) {
      for (const result of delivery.results)
        if (result.reference && options.finishers.of(result.reference.type)) options.onFinished?.(result);
    }
  });
}

/** An event's results, or null when it is not a ledger result event. */
function parsedResults(raw: ConsumeMessage): LedgerResultV1[] | null {
  try {
    const results = parseLedgerResults(JSON.parse(raw.content.toString('utf8')));
    return results && results.length > 0 ? results : null;
  } catch {
    return null;
  }
}

/** The queue gets the results of the reference types registered here, and only those. */
async function bindRegisteredTypes(options: LedgerEventsConsumerOptions): Promise<void> {
  await options.broker.declare(async (channel) => {
    for (const referenceType of options.finishers.referenceTypes) {
      for (const key of ledgerResultBindingKeys(referenceType)) await channel.bindQueue(options.queue, TOPOLOGY.ledgerEvents.exchange, key);
    }
  });
}

/**
 * Consumes the ledger's posted and rejected results from the service's shared durable queue and
 * finishes the record each names, for whichever instance's caller missed the reply (deadline,
 * crash, reply queue lost). The queue is bound to the results of the registered reference types
 * only (`ledger.posted.<type>`, `ledger.rejected.<type>`); a result of another type that still
 * arrives (a binding of an earlier version) is acknowledged and ignored. Events are recorded in batches, one transaction per
 * batch, and acknowledged with one `multiple` ack per channel (every earlier delivery is settled
 * by then: batches are recorded in arrival order); finishers are conditional updates, so a redelivery changes nothing and no inbox row is
 * needed. A database outage stalls the batch, retried until it is recorded, at no delivery
 * attempt's cost; an event that fails by itself is requeued alone (applyDeliveryBatch), and the
 * queue's delivery limit parks it in the dead-letter queue if it keeps failing.
 */
export async function startLedgerEventsConsumer(options: LedgerEventsConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const batchSizeMax = options.batchSizeMax ?? 256;
  const lingerMs = options.lingerMs ?? 50;
  let gathering: Delivery[] = [];
  let timer: NodeJS.Timeout | null = null;
  // Batches are recorded one after another: two would contend for the same rows for nothing.
  let recording: Promise<void> = Promise.resolve();
  let stopped = false;
  /** Aborted by stop(): a batch still retrying through an outage is left unacknowledged for redelivery. */
  const stopping = new AbortController();
  const record = (deliveries: readonly Delivery[]) => recordResults(options, deliveries);

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = gathering;
    gathering = [];
    if (batch.length > 0) recording = recording.then(() => recordBatch(options, record, stopping.signal, batch));
  }

  await bindRegisteredTypes(options);
  await options.broker.consume({
    queue: options.queue,
    // Enough unacknowledged events for a whole batch while the previous one is recorded.
    prefetch: batchSizeMax * 2,
    onMessage: (raw, channel) => {
      // Left unacknowledged: the broker redelivers it when the channel closes.
      if (stopped) return;
      const results = parsedResults(raw);
      if (!results) {
        options.logger.error({ messageId: raw.properties.messageId as unknown }, 'malformed ledger event dead-lettered');
        channel.nack(raw, false, false);
        return;
      }
      gathering.push({ message: raw, channel, results });
      if (gathering.length >= batchSizeMax) flush();
      else timer ??= setTimeout(flush, lingerMs).unref();
    },
  });
  return {
    /** Records what has gathered and waits for it, so nothing touches the database after its owner closes it. */
    async stop() {
      stopped = true;
      stopping.abort();
      flush();
      await recording;
    },
  };
}
