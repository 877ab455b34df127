import amqp from 'amqplib';
import { z } from 'zod';
import { ledgerResultBindingKeys, ledgerResultRoutingKey, type LedgerResultV1, TOPOLOGY } from '@wallet/contracts';
import {
  Broker,
  type Channel,
  consumeIdempotently,
  createDb,
  createInboxTable,
  createLogger,
  createOutboxUnansweredTable,
  type Db,
} from '@wallet/kit';
import { PostingFinishers, startLedgerEventsConsumer } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, startTcpProxy, type TcpProxy, waitFor } from '@wallet/kit/testing';

/**
 * Real PostgreSQL behind a proxy the test cuts, real RabbitMQ quorum queues with a small
 * delivery limit: a consumer must ride out an outage without spending its messages' delivery
 * attempts, and still park a message that fails on its own content.
 */
const logger = createLogger({ service: 'kit-outage-tests', level: 'silent' });
const DELIVERY_LIMIT = 2;
/** Long enough for a consumer that requeues on every failure to run through the delivery limit many times over. */
const OUTAGE_MS = 2_500;

let amqpUrl: string;
let databaseUrl: string;
let proxy: TcpProxy;
/** The consumers' connection, through the proxy. */
let db: Db;
/** The test's own connection, straight to the server. */
let direct: Db;
let connection: amqp.ChannelModel;
let channel: amqp.ConfirmChannel;

beforeAll(async () => {
  databaseUrl = await createTestDatabase('kit_outage');
  amqpUrl = await createTestVhost('kit_outage');
  proxy = await startTcpProxy(databaseUrl);
  db = createDb(proxy.urlThrough(databaseUrl), { poolMax: 4, logger });
  direct = createDb(databaseUrl, { poolMax: 2 });
  await createInboxTable(direct);
  await createOutboxUnansweredTable(direct);
  await direct.schema.createTable('effects', (table) => {
    table.text('id').primary();
  });
  connection = await amqp.connect(amqpUrl);
  channel = await connection.createConfirmChannel();
});

afterEach(async () => {
  await proxy.reopen();
});

afterAll(async () => {
  await connection.close().catch(() => undefined);
  await db.destroy();
  await direct.destroy();
  await proxy.close();
});

/** A quorum queue with a delivery limit and its dead-letter queue, as every service declares them. */
async function declareLimitedQueue(channel: Channel, queue: string): Promise<void> {
  await channel.assertExchange(`${queue}.dlx`, 'fanout', { durable: true });
  await channel.assertQueue(`${queue}.dlq`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(`${queue}.dlq`, `${queue}.dlx`, '');
  await channel.assertQueue(queue, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': DELIVERY_LIMIT, 'x-dead-letter-exchange': `${queue}.dlx` },
  });
}

async function brokerFor(queue: string, bind?: (channel: Channel) => Promise<void>): Promise<Broker> {
  const broker = new Broker({
    url: amqpUrl,
    name: `kit-outage-${queue}`,
    logger,
    topology: async (topologyChannel) => {
      await declareLimitedQueue(topologyChannel, queue);
      await bind?.(topologyChannel);
    },
  });
  await broker.start();
  return broker;
}

async function deadLettered(queue: string): Promise<string[]> {
  const parked: string[] = [];
  for (
    let message = await channel.get(`${queue}.dlq`, { noAck: true });
    message;
    message = await channel.get(`${queue}.dlq`, { noAck: true })
  ) {
    parked.push(message.content.toString('utf8'));
  }
  return parked;
}

async function effects(prefix: string): Promise<string[]> {
  const rows = await direct('effects').where('id', 'like', `${prefix}%`).orderBy('id').pluck('id');
  return rows as string[];
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function ledgerResult(commandId: string): LedgerResultV1 {
  return {
    type: 'ledger.result.v1',
    commandId,
    tenantId: 'org_kit',
    environment: 'test',
    status: 'posted',
    journalEntryId: `je_${commandId}`,
    reference: { type: 'transfer', id: commandId },
    error: null,
    duplicate: false,
    processedAt: new Date().toISOString(),
  };
}

async function publishResults(commandIds: string[]): Promise<void> {
  for (const commandId of commandIds) {
    channel.publish(
      TOPOLOGY.ledgerEvents.exchange,
      ledgerResultRoutingKey('posted', 'transfer'),
      Buffer.from(JSON.stringify(ledgerResult(commandId))),
      { persistent: true },
    );
  }
  await channel.waitForConfirms();
}

async function ledgerEventsBroker(queue: string): Promise<Broker> {
  return brokerFor(queue, async (topologyChannel) => {
    await topologyChannel.assertExchange(TOPOLOGY.ledgerEvents.exchange, 'topic', { durable: true });
    // Bound before any consumer starts, so events published first are kept.
    for (const key of ledgerResultBindingKeys('transfer')) await topologyChannel.bindQueue(queue, TOPOLOGY.ledgerEvents.exchange, key);
  });
}

/** Finishes a transfer result by writing its effect; `poison` fails on its own content, every time. */
function transferFinishers(poison?: string): PostingFinishers {
  const finishers = new PostingFinishers();
  finishers.register('transfer', async (tx, results) => {
    if (results.some((result) => result.commandId === poison)) throw new Error(`the result of ${poison} cannot be recorded`);
    await tx('effects')
      .insert(results.map((result) => ({ id: result.commandId })))
      .onConflict('id')
      .ignore();
  });
  return finishers;
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(3, '0')}`);

describe('a consumer through a database outage', () => {
  it('consumeIdempotently keeps every message through the outage and handles each once after it', async () => {
    const queue = 'kit.outage.inbox';
    const broker = await brokerFor(queue);
    await consumeIdempotently({
      broker,
      db,
      logger,
      queue,
      schema: z.object({ id: z.string() }),
      messageIdOf: (message) => message.id,
      handle: async (tx, message) => {
        await tx('effects').insert({ id: message.id });
      },
    });
    await proxy.cut('refuse');
    const sent = ids('inbox-', 20);
    for (const id of sent) channel.sendToQueue(queue, Buffer.from(JSON.stringify({ id })), { persistent: true });
    await channel.waitForConfirms();
    await pause(OUTAGE_MS / 2);
    await proxy.cut('starting-up');
    await pause(OUTAGE_MS / 2);
    await proxy.reopen();
    await waitFor(async () => ((await effects('inbox-')).length === sent.length ? true : undefined), {
      what: 'every message handled after the outage',
      timeoutMs: 30_000,
    });
    expect(await effects('inbox-')).toEqual(sent);
    expect(await deadLettered(queue)).toEqual([]);
    await broker.close();
  });

  it('the ledger events consumer keeps its batch through the outage, and records it after', async () => {
    const queue = 'kit.outage.ledger-events';
    const broker = await ledgerEventsBroker(queue);
    const events = await startLedgerEventsConsumer({ broker, db, logger, queue, finishers: transferFinishers(), lingerMs: 10 });
    await proxy.cut('refuse');
    const sent = ids('events-', 30);
    await publishResults(sent);
    await pause(OUTAGE_MS);
    await proxy.reopen();
    await waitFor(async () => ((await effects('events-')).length === sent.length ? true : undefined), {
      what: 'every result recorded after the outage',
      timeoutMs: 30_000,
    });
    expect(await deadLettered(queue)).toEqual([]);
    await events.stop();
    await broker.close();
  });

  it('parks only the event that fails on its own content, and records its neighbours of the same batch', async () => {
    const queue = 'kit.outage.ledger-events-poison';
    const broker = await ledgerEventsBroker(queue);
    const sent = ids('poison-', 10);
    const poison = sent[4] as string;
    // Published before the consumer starts, so they arrive together and form one batch.
    await publishResults(sent);
    const events = await startLedgerEventsConsumer({ broker, db, logger, queue, finishers: transferFinishers(poison), lingerMs: 50 });
    await waitFor(async () => ((await effects('poison-')).length === sent.length - 1 ? true : undefined), {
      what: 'the neighbours recorded',
      timeoutMs: 30_000,
    });
    const parked = await waitFor(
      async () => {
        const found = await deadLettered(queue);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the poison event parked', timeoutMs: 30_000 },
    );
    expect(parked.map((text) => (JSON.parse(text) as LedgerResultV1).commandId)).toEqual([poison]);
    expect(await effects('poison-')).toEqual(sent.filter((id) => id !== poison));
    await events.stop();
    await broker.close();
  });

  it('stopping during the outage gives up the retries at once and leaves the events for the next consumer', async () => {
    const queue = 'kit.outage.ledger-events-stop';
    const first = await ledgerEventsBroker(queue);
    const events = await startLedgerEventsConsumer({ broker: first, db, logger, queue, finishers: transferFinishers(), lingerMs: 10 });
    await proxy.cut('refuse');
    const sent = ids('stop-', 5);
    await publishResults(sent);
    await pause(OUTAGE_MS / 2);
    await events.stop();
    await first.close();
    await proxy.reopen();
    const second = await ledgerEventsBroker(queue);
    const resumed = await startLedgerEventsConsumer({ broker: second, db, logger, queue, finishers: transferFinishers(), lingerMs: 10 });
    await waitFor(async () => ((await effects('stop-')).length === sent.length ? true : undefined), {
      what: 'the events recorded by the next consumer',
      timeoutMs: 30_000,
    });
    expect(await deadLettered(queue)).toEqual([]);
    await resumed.stop();
    await second.close();
  });
});
