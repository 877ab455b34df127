import { performance } from 'node:perf_hooks';
import type { LedgerResultV1 } from '@wallet/contracts';
import { Gauge } from 'prom-client';
import { type CommonConfig, type Repeating, type ServiceMetrics, type ServiceParts, startUnansweredResending, withinMs } from '@wallet/kit';
import type { PostingAnnouncer } from './announcements';
import { type AwaitedRecord, type AwaitedRecords, AwaitingLedger } from './awaiting-ledger';
import { PostingFinishers, type PostingFinisher, startLedgerEventsConsumer } from './ledger-events-consumer';
import { type PendingReply, PostingReplies } from './posting-replies';

export type { AwaitedRecord, AwaitedRecords, PendingReply, PostingAnnouncer, PostingFinisher };

/**
 * What the postings learn of one kind of record, from its declaration: the finisher of the
 * entries naming its reference type, and its records that may await the ledger.
 */
export interface RecordPostings {
  referenceType: string;
  finisher: PostingFinisher;
  awaited: AwaitedRecords;
  /** What its results announce (docs/events.md); none: nothing. */
  announcer?: PostingAnnouncer;
}

/**
 * The shared path of every posting a service sends the ledger: record + `ledger.post.v1` in one transaction via
 * the outbox (postingMessage with `replyTo`), then wait for the ledger's answer here, with the
 * ledger's events finishing whatever nobody waited for.
 */
export interface Postings {
  /** This instance's reply queue for `postingMessage(command, { replyTo })`; undefined while it reconnects. */
  readonly replyTo: string | undefined;
  /**
   * Start waiting before the command's transaction commits; the result is null after the
   * deadline, once the record (of a type named to `awaits`) is counted and noted as waiting.
   */
  expect(commandId: string, timeoutMs: number, record: AwaitedRecord): PendingReply;
  /** Names a kind of record whose requests wait for the ledger: its timed-out replies and its oldest record still waiting are reported. */
  awaits(records: AwaitedRecords): void;
  /**
   * Says that this instance recorded the command's result from the ledger's reply (committed):
   * the event of the same result then costs no finisher statement here. Only a hint: an event whose
   * command was not noted, or was forgotten, is finished as always (the finishers are
   * conditional on the record still pending).
   */
  recordedFromReply(commandId: string): void;
  /** Registers the finisher (and announcer) of one reference type; call before start(). */
  register(referenceType: string, finisher: PostingFinisher, announcer?: PostingAnnouncer): void;
  /** Starts consuming the ledger's events, once every feature registered its finisher. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Commands whose results an instance recorded from replies, until their events arrive. Events
 * of another instance's commands never come here when several share the queue, so the oldest
 * are forgotten beyond a bound: forgetting costs one statement, never a wrong record.
 */
const RECORDED_FROM_REPLY_MAX = 50_000;

class RecentCommands {
  private readonly ids = new Set<string>();

  constructor(private readonly max: number) {}

  add(commandId: string): void {
    this.ids.add(commandId);
    if (this.ids.size > this.max) {
      // A Set iterates in insertion order: the first is the oldest.
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
  }

  /** True once for a command added and not yet taken or forgotten. */
  take(commandId: string): boolean {
    return this.ids.delete(commandId);
  }
}

/**
 * `service` names the reply connection; `eventsQueue` is the service's own durable queue bound
 * to the ledger's posted and rejected events (declared in its topology).
 */
export async function startPostings(
  parts: ServiceParts<CommonConfig>,
  options: { service: string; eventsQueue: string },
): Promise<Postings> {
  const { config, broker, db, logger } = parts;
  const replies = new PostingReplies({ amqpUrl: config.AMQP_URL, logger, name: `${options.service}-posting-replies` });
  await replies.start();
  const awaiting = new AwaitingLedger({ db, logger });
  const timedOut = reportAwaitedRecords(parts.metrics, awaiting);
  const finishers = new PostingFinishers();
  const fromReplies = new RecentCommands(RECORDED_FROM_REPLY_MAX);
  let consuming = false;
  let events: { stop(): Promise<void> } | null = null;
  let resending: Repeating | null = null;
  return {
    get replyTo() {
      return replies.replyTo;
    },
    expect: (commandId, timeoutMs, record) => {
      if (!awaiting.has(record.type)) throw new Error(`records of type ${record.type} were not named to awaits()`);
      const sentAt = performance.now();
      return replies.expect(commandId, timeoutMs, () => {
        timedOut.inc({ record_type: record.type });
        return awaiting.note(record, performance.now() - sentAt);
      });
    },
    awaits: (records) => {
      awaiting.add(records);
      // Present at 0 from the start, so a rate over it has a first sample.
      timedOut.inc({ record_type: records.recordType }, 0);
    },
    recordedFromReply: (commandId) => fromReplies.add(commandId),
    register: (referenceType, finisher, announcer) => {
      if (consuming) throw new Error(`finisher for ${referenceType} registered after the ledger events consumer started`);
      finishers.register(referenceType, finisher, announcer);
    },
    start: async () => {
      if (consuming) return;
      consuming = true;
      events = await startLedgerEventsConsumer({
        broker,
        db,
        logger,
        queue: options.eventsQueue,
        finishers,
        onFinished: (result: LedgerResultV1) => replies.deliver(result),
        recordedFromReply: (result: LedgerResultV1) => fromReplies.take(result.commandId),
      });
      resending = startUnansweredResending({ ...parts, afterMs: config.OUTBOX_RESEND_UNANSWERED_AFTER_MS });
    },
    stop: async () => {
      await resending?.stop();
      await events?.stop();
      await replies.close();
    },
  };
}

/** How long a scrape waits for the records' ages before it leaves them out. */
const AGES_TIMEOUT_MS = 2_000;

function reportAwaitedRecords(metrics: ServiceMetrics, awaiting: AwaitingLedger) {
  new Gauge({
    name: 'pending_records_oldest_age_seconds',
    help: "Age of the oldest record still waiting for the ledger after its request's wait ran out, from when its command was sent (0: none)",
    labelNames: ['record_type'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      await Promise.all(
        awaiting.recordTypes.map(async (recordType) => {
          const age = await withinMs(awaiting.oldestAgeSeconds(recordType), AGES_TIMEOUT_MS).catch(() => null);
          if (age !== null) this.set({ record_type: recordType }, age);
        }),
      );
    },
  });
  return metrics.counter(
    'ledger_replies_timed_out_total',
    "Requests whose wait for the ledger's reply ran out: answered 202 pending (a deposit credit, without its journal entry)",
    ['record_type'],
  );
}
