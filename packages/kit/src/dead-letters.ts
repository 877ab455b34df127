import { createHash } from 'node:crypto';
import type { DeadLetter, DeadLetterDeath, DeadLetterList, DeadLetterSummary } from '@wallet/contracts/http/dead-letters';
import type { GetMessage, MessageProperties, Options } from 'amqplib';
import type { Broker, ConfirmChannel } from './amqp';
import { DependencyUnavailableError } from './dependency-errors';
import { AppError } from './errors';

/** Headers the broker writes when it dead-letters or redelivers a message: none of the message's own. */
const BROKER_HEADER = /^x-(death|first-death-.+|last-death-.+|delivery-count)$/;
/** Set on a replayed message: which dead letter it was, for whoever traces it afterwards. */
export const REPLAYED_DEAD_LETTER_HEADER = 'x-replayed-dead-letter';

interface Parked {
  queue: string;
  message: GetMessage;
  id: string;
  deaths: DeadLetterDeath[];
}

/**
 * Runs once the message is found and before it is replayed or removed (the caller's audit
 * record): nothing changes unrecorded. If the action then fails, the record stands for an
 * attempt and the message stays parked.
 */
export type BeforeAction = (deadLetter: DeadLetterSummary) => Promise<void>;

/** `remove` acknowledges the message: it leaves the queue (the others go back when the scan ends). */
type Visit = (parked: Parked, channel: ConfirmChannel, remove: () => void) => Promise<'next' | 'stop'>;

export interface DeadLetterQueuesOptions {
  broker: Pick<Broker, 'openChannel'>;
  /** Every dead-letter queue the tooling reads. */
  queues: readonly string[];
}

/** How long a scan waits for the messages it put back to count as ready again (see scan). */
const PUT_BACK_WAIT_MS = 3_000;

/**
 * The dead-letter queues as the broker holds them: nothing is copied out. A message is read
 * with basic.get on a channel of its own and not acknowledged, so closing that channel puts
 * back everything it read; only a replay or a discard acknowledges (removes) the one it is
 * about. A search reads each queue as deep as it was when the search began, so a message that
 * dies again during a replay of many is not taken twice.
 *
 * Messages read and not yet put back are invisible to any other reader: operations of this
 * instance take turns. Two instances listing at once may each see part of a queue.
 */
export class DeadLetterQueues {
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DeadLetterQueuesOptions) {}

  list(query: { queue?: string | undefined; limit: number }): Promise<DeadLetterList> {
    return this.exclusive(async () => {
      const depths = await this.depths(this.queuesOf(query.queue));
      const data: DeadLetterSummary[] = [];
      await this.scan(depths, async (parked) => {
        data.push(summaryOf(parked));
        return data.length < query.limit ? 'next' : 'stop';
      });
      return { queues: [...depths].map(([queue, messages]) => ({ queue, messages })), data };
    });
  }

  get(id: string): Promise<DeadLetter | null> {
    return this.exclusive(async () => {
      let found: DeadLetter | null = null;
      await this.find(id, async (parked) => {
        found = detailOf(parked);
      });
      return found;
    });
  }

  /**
   * Delivers it to the queue it died in, as it was sent, then removes it; null when no such
   * message is parked. `record` runs first (see BeforeAction).
   */
  replay(id: string, record: BeforeAction): Promise<DeadLetterSummary | null> {
    return this.exclusive(async () => {
      let replayed: DeadLetterSummary | null = null;
      await this.find(id, async (parked, channel, remove) => {
        const target = originOf(parked);
        if (!target)
          throw new AppError('VALIDATION_ERROR', 'The broker recorded no queue this message died in: it can only be discarded', { id });
        await this.requireQueue(target);
        replayed = summaryOf(parked);
        await record(replayed);
        await republish(channel, parked, target);
        remove();
      });
      return replayed;
    });
  }

  /** Replays up to `limit`, oldest first, each `record`ed first; a message without a recorded origin stays parked. */
  replayMany(query: { queue?: string | undefined; limit: number }, record: BeforeAction): Promise<DeadLetterSummary[]> {
    return this.exclusive(async () => {
      const depths = await this.depths(this.queuesOf(query.queue));
      const existing = new Set([...depths].filter(([, messages]) => messages !== null).map(([queue]) => queue));
      const replayed: DeadLetterSummary[] = [];
      await this.scan(depths, async (parked, channel, remove) => {
        const target = originOf(parked);
        if (!target) return 'next';
        if (!existing.has(target)) {
          await this.requireQueue(target);
          existing.add(target);
        }
        const summary = summaryOf(parked);
        await record(summary);
        await republish(channel, parked, target);
        remove();
        replayed.push(summary);
        return replayed.length < query.limit ? 'next' : 'stop';
      });
      return replayed;
    });
  }

  /** Removes it without delivering it; null when no such message is parked. `record` runs first. */
  discard(id: string, record: BeforeAction): Promise<DeadLetterSummary | null> {
    return this.exclusive(async () => {
      let discarded: DeadLetterSummary | null = null;
      await this.find(id, async (parked, _channel, remove) => {
        discarded = summaryOf(parked);
        await record(discarded);
        remove();
      });
      return discarded;
    });
  }

  private queuesOf(queue: string | undefined): readonly string[] {
    return queue === undefined ? this.options.queues : this.options.queues.filter((each) => each === queue);
  }

  private exclusive<Result>(work: () => Promise<Result>): Promise<Result> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** `act` runs on the message with this id, on the channel that holds it, before the others go back. */
  private async find(id: string, act: (parked: Parked, channel: ConfirmChannel, remove: () => void) => Promise<void>): Promise<void> {
    const depths = await this.depths(this.options.queues);
    await this.scan(depths, async (parked, channel, remove) => {
      if (parked.id !== id) return 'next';
      await act(parked, channel, remove);
      return 'stop';
    });
  }

  /** Messages ready in each queue; null for a queue no service has declared on this broker. */
  private async depths(queues: readonly string[]): Promise<Map<string, number | null>> {
    const depths = new Map<string, number | null>();
    let channel = await this.options.broker.openChannel();
    try {
      for (const queue of queues) {
        try {
          depths.set(queue, (await channel.checkQueue(queue)).messageCount);
        } catch (error) {
          if ((error as { code?: unknown }).code !== 404) throw error;
          // The broker closed the channel over the missing queue.
          depths.set(queue, null);
          channel = await this.options.broker.openChannel();
        }
      }
    } finally {
      await closeQuietly(channel);
    }
    return depths;
  }

  private async requireQueue(queue: string): Promise<void> {
    const [depth] = (await this.depths([queue])).values();
    if (depth === null || depth === undefined)
      throw new DependencyUnavailableError('broker', `queue ${queue} is not declared: start the service that consumes it, then replay`);
  }

  /**
   * Reads each queue up to its depth at the start; closing the channel puts back what was not
   * acknowledged. A quorum queue counts the messages put back as ready only a moment later: the
   * scan waits for that, so the next one (a list right after another, a get after a list) finds
   * every message where it was.
   */
  private async scan(depths: ReadonlyMap<string, number | null>, visit: Visit): Promise<void> {
    const channel = await this.options.broker.openChannel();
    const removed = new Map<string, number>();
    try {
      for (const [queue, depth] of depths) {
        for (let read = 0; read < (depth ?? 0); read += 1) {
          const message = await channel.get(queue, { noAck: false });
          if (!message) break;
          const remove = () => {
            channel.ack(message);
            removed.set(queue, (removed.get(queue) ?? 0) + 1);
          };
          if ((await visit(parkedOf(queue, message), channel, remove)) === 'stop') return;
        }
      }
    } finally {
      await closeQuietly(channel);
      await this.untilPutBack(depths, removed);
    }
  }

  /** Until each queue holds at least what it held before the scan less what the scan removed, for at most PUT_BACK_WAIT_MS. */
  private async untilPutBack(before: ReadonlyMap<string, number | null>, removed: ReadonlyMap<string, number>): Promise<void> {
    const expected = [...before]
      .filter(([, depth]) => (depth ?? 0) > 0)
      .map(([queue, depth]) => [queue, (depth ?? 0) - (removed.get(queue) ?? 0)] as const);
    const deadline = Date.now() + PUT_BACK_WAIT_MS;
    while (expected.length > 0 && Date.now() < deadline) {
      const now = await this.depths(expected.map(([queue]) => queue));
      if (expected.every(([queue, depth]) => (now.get(queue) ?? 0) >= depth)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function closeQuietly(channel: ConfirmChannel): Promise<void> {
  await channel.close().catch(() => undefined);
}

/** Resolves once the broker confirmed it. The default exchange delivers to the queue named, and to no other. */
function republish(channel: ConfirmChannel, parked: Parked, queue: string): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.publish('', queue, parked.message.content, republishOptions(parked), (error) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
    );
  });
}

/**
 * The message's own properties and headers. Left out: what the broker added, `expiration` (the
 * broker drops it on dead-lettering anyway) and `userId` (the broker refuses one that is not
 * the publishing connection's user).
 */
function republishOptions(parked: Parked): Options.Publish {
  const { properties } = parked.message;
  const options: Options.Publish = { headers: { ...ownHeaders(properties), [REPLAYED_DEAD_LETTER_HEADER]: parked.id } };
  const copied = [
    'contentType',
    'contentEncoding',
    'deliveryMode',
    'priority',
    'correlationId',
    'replyTo',
    'messageId',
    'timestamp',
    'type',
    'appId',
  ] as const;
  for (const name of copied) {
    if (properties[name] !== undefined) Object.assign(options, { [name]: properties[name] as unknown });
  }
  return options;
}

function ownHeaders(properties: MessageProperties): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties.headers ?? {}).filter(([name]) => !BROKER_HEADER.test(name)));
}

/** The queue it was last dead-lettered from: the broker keeps the newest record first. */
function originOf(parked: Parked): string | null {
  return parked.deaths[0]?.queue ?? null;
}

function parkedOf(queue: string, message: GetMessage): Parked {
  const deaths = deathsOf(message.properties.headers?.['x-death']);
  return { queue, message, deaths, id: deadLetterIdOf(queue, message, deaths) };
}

/**
 * A digest of where it is parked, its id, how and when it died, its own headers and its body:
 * the same in every listing while it stays parked (the broker's delivery count, which a listing
 * raises, is left out), and a message that dies again after a replay is a new dead letter.
 */
function deadLetterIdOf(queue: string, message: GetMessage, deaths: DeadLetterDeath[]): string {
  const digest = createHash('sha256');
  digest.update(
    JSON.stringify([
      queue,
      message.properties.messageId ?? null,
      deaths.map((death) => [death.queue, death.reason, death.at]),
      plain(ownHeaders(message.properties)),
    ]),
  );
  digest.update(message.content);
  return `dl_${digest.digest('hex').slice(0, 32)}`;
}

function deathsOf(header: unknown): DeadLetterDeath[] {
  if (!Array.isArray(header)) return [];
  return header.flatMap((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const death = entry as Record<string, unknown>;
    const routingKeys = Array.isArray(death['routing-keys']) ? death['routing-keys'].map(String) : [];
    return [
      {
        queue: String(death.queue ?? ''),
        exchange: String(death.exchange ?? ''),
        routingKeys,
        reason: String(death.reason ?? ''),
        count: Number(death.count ?? 0),
        at: timeOf(death.time),
      },
    ];
  });
}

/** An AMQP timestamp as amqplib decodes it (`{'!': 'timestamp', value}` or seconds). */
function timeOf(value: unknown): string | null {
  const seconds = typeof value === 'number' ? value : isTyped(value) && typeof value.value === 'number' ? value.value : null;
  return seconds === null ? null : new Date(seconds * 1000).toISOString();
}

function isTyped(value: unknown): value is { '!': string; value: unknown } {
  return typeof value === 'object' && value !== null && '!' in value && 'value' in value;
}

/** Header values as JSON can show them: timestamps as ISO 8601, bytes as base64. */
function plain(value: unknown): unknown {
  if (isTyped(value)) return value['!'] === 'timestamp' ? timeOf(value) : plain(value.value);
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  return value;
}

function textOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : String(value);
}

function summaryOf(parked: Parked): DeadLetterSummary {
  const { properties } = parked.message;
  const latest = parked.deaths[0];
  return {
    id: parked.id,
    queue: parked.queue,
    originalQueue: latest?.queue ?? null,
    reason: latest?.reason ?? null,
    deadLetteredAt: latest?.at ?? null,
    messageId: textOrNull(properties.messageId),
    type: textOrNull(properties.type),
    bodyBytes: parked.message.content.length,
  };
}

function detailOf(parked: Parked): DeadLetter {
  const { properties } = parked.message;
  return {
    ...summaryOf(parked),
    deaths: parked.deaths,
    properties: {
      contentType: textOrNull(properties.contentType),
      contentEncoding: textOrNull(properties.contentEncoding),
      correlationId: textOrNull(properties.correlationId),
      replyTo: textOrNull(properties.replyTo),
      timestamp: timeOf(properties.timestamp),
      appId: textOrNull(properties.appId),
      persistent: properties.deliveryMode === 2,
    },
    headers: plain(ownHeaders(properties)) as Record<string, unknown>,
    ...decodedBody(parked.message.content),
  };
}

/** For reading only (numbers as JSON.parse reads them): a replay sends the original bytes. */
function decodedBody(content: Buffer): Pick<DeadLetter, 'bodyEncoding' | 'body'> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return { bodyEncoding: 'base64', body: content.toString('base64') };
  }
  try {
    return { bodyEncoding: 'json', body: JSON.parse(text) as unknown };
  } catch {
    return { bodyEncoding: 'text', body: text };
  }
}
