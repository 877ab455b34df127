import amqp from 'amqplib';
import {
  LEDGER_COMMANDS_PER_MESSAGE_MAX,
  ledgerCommandRoutingKey,
  type LedgerCommandsV1,
  ledgerCommandsV1Schema,
  type LedgerPostV1,
  TOPOLOGY,
} from '@wallet/contracts';
import { Broker, createDb, createLogger, createOutboxTable, type Db, enqueueOutbox, OutboxRelay, type OutgoingMessage } from '@wallet/kit';
import { coalesceLedgerCommands, postingMessage } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, waitFor } from '@wallet/kit/testing';

const logger = createLogger({ service: 'kit-coalescing-test', level: 'silent' });

function command(id: string, tenantId = 'tn_coalesce'): LedgerPostV1 {
  return {
    type: 'ledger.post.v1',
    commandId: id,
    tenantId,
    environment: 'test',
    correlationId: `corr-${id}`,
    kind: 'transfer',
    reference: { type: 'transfer', id },
    lines: [
      { accountName: 'wallet:a', walletId: 'wl_a', direction: 'DR', amount: '1.00', currencyCode: 'USD' },
      { accountName: 'wallet:b', walletId: 'wl_b', direction: 'CR', amount: '1.00', currencyCode: 'USD' },
    ],
  };
}

function outgoing(id: string, replyTo?: string, tenantId?: string): OutgoingMessage {
  const message = postingMessage(command(id, tenantId), { replyTo });
  return {
    exchange: message.exchange,
    routingKey: message.routingKey,
    text: JSON.stringify(message.payload),
    options: { messageId: message.messageId, type: message.type, correlationId: message.correlationId, ...(replyTo ? { replyTo } : {}) },
  };
}

function event(id: string): OutgoingMessage {
  return { exchange: 'kit.events', routingKey: 'a', text: '{}', options: { messageId: id, type: 'kit.event' } };
}

function envelopeOf(message: OutgoingMessage): LedgerCommandsV1 {
  return ledgerCommandsV1Schema.parse(JSON.parse(message.text));
}

describe('ledger commands travel several to a message', () => {
  it('puts the commands for one reply queue in one ledger.commands.v1, in order, each with its correlation id, and leaves the rest alone', () => {
    const messages = [
      event('e-1'),
      outgoing('c-1', 'q-1'),
      outgoing('c-2', 'q-2'),
      outgoing('c-3', 'q-1'),
      event('e-2'),
      outgoing('c-4', 'q-1'),
      outgoing('c-5'),
    ];
    const out = coalesceLedgerCommands(messages);
    expect(out.map((message) => message.options.type)).toEqual([
      'kit.event',
      'ledger.commands.v1',
      'ledger.post.v1',
      'kit.event',
      'ledger.post.v1',
    ]);
    const envelope = out[1] as OutgoingMessage;
    expect(envelope).toMatchObject({
      exchange: TOPOLOGY.ledgerCommands.exchange,
      routingKey: ledgerCommandRoutingKey('tn_coalesce'),
      options: { replyTo: 'q-1', messageId: 'c-1:commands' },
    });
    expect(envelopeOf(envelope).commands).toEqual(['c-1', 'c-3', 'c-4'].map((id) => ({ correlationId: id, command: command(id) })));
    // Alone in its group, a command goes as it came: the one for q-2 and the one without a reply queue.
    expect(out[2]).toBe(messages[2]);
    expect(out[4]).toBe(messages[6]);
  });

  it("keeps each tenant's commands to a message of their own: a message reaches one tenant's partition", () => {
    const messages = [
      outgoing('a-1', 'q', 'tn_a'),
      outgoing('b-1', 'q', 'tn_b'),
      outgoing('a-2', 'q', 'tn_a'),
      outgoing('b-2', 'q', 'tn_b'),
    ];
    const out = coalesceLedgerCommands(messages);
    expect(
      out.map((message) => [message.routingKey, envelopeOf(message).commands.map((item) => (item.command as LedgerPostV1).commandId)]),
    ).toEqual([
      [ledgerCommandRoutingKey('tn_a'), ['a-1', 'a-2']],
      [ledgerCommandRoutingKey('tn_b'), ['b-1', 'b-2']],
    ]);
  });

  it(`caps a message at ${LEDGER_COMMANDS_PER_MESSAGE_MAX} commands and loses none`, () => {
    const messages = Array.from({ length: 2 * LEDGER_COMMANDS_PER_MESSAGE_MAX + 1 }, (_, index) => outgoing(`c-${index}`, 'q'));
    const out = coalesceLedgerCommands(messages);
    expect(out).toHaveLength(3);
    const carried = out.flatMap((message) =>
      message.options.type === 'ledger.commands.v1'
        ? envelopeOf(message).commands.map((item) => (item.command as LedgerPostV1).commandId)
        : [(JSON.parse(message.text) as LedgerPostV1).commandId],
    );
    expect(carried).toEqual(messages.map((message) => message.options.messageId));
  });

  describe('through the outbox, against real PostgreSQL and RabbitMQ', () => {
    let db: Db;
    let amqpUrl: string;
    beforeAll(async () => {
      db = createDb(await createTestDatabase('kit'));
      await createOutboxTable(db);
      amqpUrl = await createTestVhost('kit');
    });
    afterAll(async () => {
      await db.destroy();
    });

    it('publishes the commands one turn hands over, and those one pass finds, as one message per reply queue', async () => {
      const connection = await amqp.connect(amqpUrl);
      const channel = await connection.createChannel();
      await channel.assertExchange(TOPOLOGY.ledgerCommands.exchange, 'direct', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true });
      await channel.bindQueue(queue, TOPOLOGY.ledgerCommands.exchange, ledgerCommandRoutingKey('tn_coalesce'));
      const received: Array<{ type: string; body: unknown }> = [];
      await channel.consume(
        queue,
        (message) =>
          message && received.push({ type: String(message.properties.type), body: JSON.parse(message.content.toString('utf8')) }),
        { noAck: true },
      );

      const broker = new Broker({
        url: amqpUrl,
        name: 'kit-coalescing',
        logger,
        topology: async (ch) => void (await ch.assertExchange(TOPOLOGY.ledgerCommands.exchange, 'direct', { durable: true })),
      });
      await broker.start();
      const relay = new OutboxRelay({ db, broker, logger, idleDelayMs: 60_000, prepareBatch: coalesceLedgerCommands });

      const handed = ['h-1', 'h-2', 'h-3'].map((id) => postingMessage(command(id), { replyTo: 'replies-a' }));
      const handOver = relay.handOver(handed);
      await db.transaction((tx) => enqueueOutbox(tx, handed));
      handOver.committed();
      await waitFor(async () => (received.length >= 1 ? true : undefined), { what: 'the handed-over commands' });

      const left = ['p-1', 'p-2'].map((id) => postingMessage(command(id), { replyTo: 'replies-b' }));
      await db.transaction((tx) => enqueueOutbox(tx, left));
      expect(await relay.publishOnce()).toBe(2);
      await waitFor(async () => (received.length >= 2 ? true : undefined), { what: 'the commands a pass found' });
      await new Promise((resolve) => setTimeout(resolve, 100));

      expect(received).toHaveLength(2);
      expect(received.map((message) => message.type)).toEqual(['ledger.commands.v1', 'ledger.commands.v1']);
      const ids = received.map((message) => ledgerCommandsV1Schema.parse(message.body).commands.map((item) => item.correlationId));
      expect(ids).toEqual([
        ['h-1', 'h-2', 'h-3'],
        ['p-1', 'p-2'],
      ]);
      await waitFor(async () => ((await db('outbox').count<{ count: string }[]>('* as count'))[0]?.count === '0' ? true : undefined), {
        what: 'the outbox to empty',
      });
      await broker.close();
      await connection.close();
    });
  });
});
