import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { type LedgerCommand, ledgerCommandRoutingKey, type LedgerResultV1, parseLedgerReplies, TOPOLOGY } from '@wallet/contracts';
import { brokerAddresses, connectToBroker, declareLedgerCommands } from '@wallet/kit';

interface Waiter {
  resolve: (result: LedgerResultV1) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Where commands go: their tenant's partition, named by the first command (the commands of one
 * message share a tenant). Without a tenant the ledger's placement answers or dead-letters it.
 */
function routingKeyOf(commands: ReadonlyArray<LedgerCommand | Record<string, unknown>>): string {
  const tenantId = commands[0]?.tenantId;
  return typeof tenantId === 'string' ? ledgerCommandRoutingKey(tenantId) : '';
}

export class LedgerReplyTimeout extends Error {
  constructor(readonly commandId: string) {
    super(`no ledger reply for ${commandId} within the deadline`);
    this.name = 'LedgerReplyTimeout';
  }
}

/**
 * Sends commands to the ledger and waits for each reply, with a deadline. Commands are
 * persistent and confirmed; replies come back on this client's exclusive queue, matched by
 * correlation id. A timed-out caller is not told the command failed: the ledger may still
 * post it, and its result is recorded and published.
 */
export class LedgerCommandClient {
  private readonly waiters = new Map<string, Waiter>();

  private constructor(
    private readonly connection: ChannelModel,
    private readonly channel: ConfirmChannel,
    private readonly replyQueue: string,
  ) {}

  static async connect(url: string, name = 'ledger-client'): Promise<LedgerCommandClient> {
    const { connection } = await connectToBroker(brokerAddresses(url), name);
    const channel = await connection.createConfirmChannel();
    await declareLedgerCommands(channel);
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    const client = new LedgerCommandClient(connection, channel, queue);
    await channel.consume(
      queue,
      (message) => message && client.onReply(message.properties.correlationId as string | undefined, message.content),
      { noAck: true },
    );
    return client;
  }

  private onReply(correlationId: string | undefined, content: Buffer): void {
    const replies = parseLedgerReplies(JSON.parse(content.toString('utf8')), correlationId ?? null);
    if (!replies) {
      // Unreadable: whoever waits on this message's correlation id learns it.
      const waiter = correlationId ? this.waiters.get(correlationId) : undefined;
      if (waiter && correlationId) this.settle(correlationId, waiter, new Error('malformed ledger reply'));
      return;
    }
    for (const reply of replies) {
      const waiter = reply.correlationId ? this.waiters.get(reply.correlationId) : undefined;
      if (waiter && reply.correlationId) this.settle(reply.correlationId, waiter, reply.result);
    }
  }

  private settle(correlationId: string, waiter: Waiter, outcome: LedgerResultV1 | Error): void {
    this.waiters.delete(correlationId);
    clearTimeout(waiter.timer);
    if (outcome instanceof Error) waiter.reject(outcome);
    else waiter.resolve(outcome);
  }

  /** Publishes (confirmed) without waiting for the ledger's answer. */
  async send(command: LedgerCommand | Record<string, unknown>, options: { replyTo?: boolean; correlationId?: string } = {}): Promise<void> {
    await this.publish(Buffer.from(JSON.stringify(command)), routingKeyOf([command]), {
      type: String(command.type ?? 'unknown'),
      messageId: String(command.commandId ?? ''),
      correlationId: options.correlationId,
      replyTo: options.replyTo ? this.replyQueue : undefined,
    });
  }

  private async publish(
    body: Buffer,
    routingKey: string,
    properties: { type: string; messageId: string; correlationId?: string | undefined; replyTo?: string | undefined },
  ): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.channel.publish(
        TOPOLOGY.ledgerCommands.exchange,
        routingKey,
        body,
        { persistent: true, contentType: 'application/json', ...properties },
        (error) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
      );
    });
  }

  /** A waiter for the answer correlated by a fresh id, so a repeated commandId gets its own answer. */
  private expectReply(commandId: string, timeoutMs: number): { correlationId: string; reply: Promise<LedgerResultV1>; cancel: () => void } {
    const correlationId = `${commandId}#${Math.random().toString(36).slice(2)}`;
    const reply = new Promise<LedgerResultV1>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(correlationId);
        reject(new LedgerReplyTimeout(commandId));
      }, timeoutMs);
      this.waiters.set(correlationId, { resolve, reject, timer });
    });
    const cancel = (): void => {
      const waiter = this.waiters.get(correlationId);
      if (waiter) clearTimeout(waiter.timer);
      this.waiters.delete(correlationId);
    };
    return { correlationId, reply, cancel };
  }

  /** Sends and waits for the reply, or rejects with LedgerReplyTimeout after `timeoutMs`. */
  async request(command: LedgerCommand | Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<LedgerResultV1> {
    const expected = this.expectReply(String(command.commandId), options.timeoutMs ?? 10_000);
    try {
      await this.send(command, { replyTo: true, correlationId: expected.correlationId });
    } catch (error) {
      expected.cancel();
      throw error;
    }
    return expected.reply;
  }

  /**
   * Sends `commands` as one `ledger.commands.v1` message and waits for every answer, in the
   * commands' order (items that are no valid command are sent as they are: the ledger answers
   * or dead-letters them as it would a lone one).
   */
  async requestMany(
    commands: ReadonlyArray<LedgerCommand | Record<string, unknown>>,
    options: { timeoutMs?: number } = {},
  ): Promise<LedgerResultV1[]> {
    const expected = commands.map((command) => this.expectReply(String(command.commandId), options.timeoutMs ?? 10_000));
    const envelope = {
      type: 'ledger.commands.v1',
      commands: commands.map((command, index) => ({
        correlationId: (expected[index] as { correlationId: string }).correlationId,
        command,
      })),
    };
    try {
      await this.publish(Buffer.from(JSON.stringify(envelope)), routingKeyOf(commands), {
        type: envelope.type,
        messageId: `${String(commands[0]?.commandId)}:commands`,
        replyTo: this.replyQueue,
      });
    } catch (error) {
      for (const one of expected) one.cancel();
      throw error;
    }
    return Promise.all(expected.map((one) => one.reply));
  }

  async close(): Promise<void> {
    for (const waiter of this.waiters.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('ledger client closed'));
    }
    this.waiters.clear();
    await this.connection.close().catch(() => undefined);
  }
}
