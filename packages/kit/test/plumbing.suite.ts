import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import amqp from 'amqplib';
import { z } from 'zod';
import { ledgerResultRoutingKey, type LedgerResultV1, TOPOLOGY } from '@wallet/contracts';
import {
  Broker,
  brokerAddresses,
  ConfigError,
  commonConfigShape,
  consumeIdempotently,
  createDb,
  createInboxTable,
  createLogger,
  createOutboxTable,
  type Db,
  decodeCursor,
  encodeCursor,
  enqueueOutbox,
  loadConfig,
  OutboxRelay,
  internalTokenSigner,
  internalTokenVerifier,
  signInternalToken,
  verifyInternalToken,
} from '@wallet/kit';
import { PostingFinishers, startLedgerEventsConsumer } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, waitFor } from '@wallet/kit/testing';

const run = promisify(execFile);
const logger = createLogger({ service: 'kit-test', level: 'silent' });

describe('config', () => {
  it('names the variable that is wrong', () => {
    expect(() =>
      loadConfig({ ...commonConfigShape, PORT: z.coerce.number().int() }, { INTERNAL_TOKEN_SECRET: 'short', PORT: 'eighty' }),
    ).toThrow(ConfigError);
    try {
      loadConfig({ ...commonConfigShape }, { INTERNAL_TOKEN_SECRET: 'short' });
    } catch (error) {
      expect((error as ConfigError).problems.join()).toContain('INTERNAL_TOKEN_SECRET');
    }
  });

  it('takes a database server as one URL or a primary and its standbys in the multi-host form, and names DATABASE_URL when it is neither', () => {
    const secret = 'x'.repeat(32);
    const pair = 'postgres://wallet@db1:5432,db2:5433/postgres';
    expect(loadConfig({ ...commonConfigShape }, { INTERNAL_TOKEN_SECRET: secret, DATABASE_URL: pair }).DATABASE_URL).toBe(pair);
    expect(() => loadConfig({ ...commonConfigShape }, { INTERNAL_TOKEN_SECRET: secret, DATABASE_URL: 'db1 and db2' })).toThrow(
      /DATABASE_URL/,
    );
  });

  it("takes one broker address or a cluster's nodes separated by commas, and names AMQP_URL when one is not a URL", () => {
    const secret = 'x'.repeat(32);
    const nodes = 'amqp://guest:guest@10.0.0.1:5672/wallet, amqp://guest:guest@10.0.0.2:5672/wallet';
    const config = loadConfig({ ...commonConfigShape }, { INTERNAL_TOKEN_SECRET: secret, AMQP_URL: nodes });
    expect(brokerAddresses(config.AMQP_URL)).toEqual([
      'amqp://guest:guest@10.0.0.1:5672/wallet',
      'amqp://guest:guest@10.0.0.2:5672/wallet',
    ]);
    expect(() => loadConfig({ ...commonConfigShape }, { INTERNAL_TOKEN_SECRET: secret, AMQP_URL: 'amqp://a:5672,not a url' })).toThrow(
      /AMQP_URL/,
    );
  });
});

describe('internal tokens', () => {
  const secret = 'kit-test-internal-secret-0123456789abcdef';
  const claims = {
    surface: 'tenant' as const,
    tenantId: 'tn_1',
    environment: 'test' as const,
    keyId: 'ak_1',
    scopes: ['ledger:read'],
    actor: null,
  };

  it('verifies its own token until it expires, and nothing else', () => {
    const now = Date.now();
    const token = signInternalToken(secret, claims, now);
    expect(verifyInternalToken(secret, token, now)).toMatchObject(claims);
    expect(verifyInternalToken(secret, token, now + 61_000)).toBeNull();
    expect(verifyInternalToken(`${secret}x`, token, now)).toBeNull();
    const [payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, tenantId: 'tn_2', exp: Math.floor(now / 1000) + 60 })).toString('base64url');
    expect(verifyInternalToken(secret, `${forged}.${signature}`, now)).toBeNull();
    expect(verifyInternalToken(secret, `${payload}`, now)).toBeNull();
  });

  it('signs once per caller and reuses the token for the first half of its life', () => {
    let now = 1_800_000_000_000;
    const sign = internalTokenSigner(secret, () => now);
    const first = sign(claims);
    expect(sign({ ...claims, scopes: [...claims.scopes] })).toBe(first);
    expect(sign({ ...claims, actor: { type: 'user', id: 'usr_1' } })).not.toBe(first);
    expect(sign({ ...claims, scopes: ['ledger:read', 'ledger:write'] })).not.toBe(first);
    now += 29_000;
    expect(sign(claims)).toBe(first);
    now += 2_000;
    const second = sign(claims);
    expect(second).not.toBe(first);
    expect(verifyInternalToken(secret, second, now)).toMatchObject(claims);
  });

  it('remembers a verified token only until it expires, and never a refused one', () => {
    let now = 1_800_000_000_000;
    const verify = internalTokenVerifier(secret, () => now);
    const token = signInternalToken(secret, claims, now);
    expect(verify(token)).toMatchObject(claims);
    expect(verify(token)).toMatchObject(claims);
    const forged = signInternalToken(`${secret}x`, claims, now);
    expect(verify(forged)).toBeNull();
    expect(verify(forged)).toBeNull();
    now += 61_000;
    expect(verify(token)).toBeNull();
  });
});

describe('cursors', () => {
  it('round-trips and refuses garbage with INVALID_CURSOR', () => {
    expect(decodeCursor(encodeCursor({ seq: '42' }), { seq: z.string() })).toEqual({ seq: '42' });
    expect(() => decodeCursor('%%%', { seq: z.string() })).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR' }));
    expect(() => decodeCursor(encodeCursor({ other: 1 }), { seq: z.string() })).toThrow(
      expect.objectContaining({ code: 'INVALID_CURSOR' }),
    );
  });
});

describe('outbox, inbox and broker against real PostgreSQL and RabbitMQ', () => {
  let db: Db;
  let amqpUrl: string;
  let vhost: string;
  beforeAll(async () => {
    db = createDb(await createTestDatabase('kit'));
    await createOutboxTable(db);
    await createInboxTable(db);
    await db.schema.createTable('effects', (table) => {
      table.text('message_id');
    });
    amqpUrl = await createTestVhost('kit');
    vhost = decodeURIComponent(new URL(amqpUrl).pathname.slice(1));
  });
  afterAll(async () => {
    await db.destroy();
  });

  async function collect(queue: string, into: string[]): Promise<amqp.ChannelModel> {
    const connection = await amqp.connect(amqpUrl);
    const channel = await connection.createChannel();
    await channel.assertExchange('kit.events', 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: false });
    await channel.bindQueue(queue, 'kit.events', '#');
    await channel.consume(queue, (message) => message && into.push(String(message.properties.messageId)), { noAck: true });
    return connection;
  }

  /** A started broker whose topology is the ledger's events exchange and one service's quorum queue. */
  async function ledgerEventsBroker(name: string, queue: string): Promise<Broker> {
    const broker = new Broker({
      url: amqpUrl,
      name,
      logger,
      topology: async (channel) => {
        await channel.assertExchange(TOPOLOGY.ledgerEvents.exchange, 'topic', { durable: true });
        await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      },
    });
    await broker.start();
    return broker;
  }

  /** The ledger's result of one command, as its events carry it. */
  function ledgerResult(commandId: string, status: 'posted' | 'rejected', reference: { type: string; id: string }): LedgerResultV1 {
    return {
      type: 'ledger.result.v1',
      commandId,
      tenantId: 'org_kit',
      environment: 'test',
      status,
      journalEntryId: status === 'posted' ? `je_${commandId}` : null,
      reference,
      error: status === 'rejected' ? { code: 'INSUFFICIENT_FUNDS', message: 'no funds' } : null,
      duplicate: false,
      processedAt: new Date().toISOString(),
    };
  }

  it('publishes what a committed transaction enqueued, never what a rolled-back one did', async () => {
    const received: string[] = [];
    const listener = await collect('kit-outbox-test', received);
    const broker = new Broker({
      url: amqpUrl,
      name: 'kit-test',
      logger,
      topology: async (channel) => void (await channel.assertExchange('kit.events', 'topic', { durable: true })),
    });
    await broker.start();
    const relay = new OutboxRelay({ db, broker, logger, idleDelayMs: 20 });
    relay.start();
    await db.transaction((tx) =>
      enqueueOutbox(tx, [{ messageId: 'committed-1', exchange: 'kit.events', routingKey: 'a', type: 't', payload: { n: 1 } }]),
    );
    await db
      .transaction(async (tx) => {
        await enqueueOutbox(tx, [{ messageId: 'rolled-back-1', exchange: 'kit.events', routingKey: 'a', type: 't', payload: { n: 2 } }]);
        throw new Error('abort');
      })
      .catch(() => undefined);
    relay.wake();
    await waitFor(async () => (received.includes('committed-1') ? true : undefined), { what: 'the committed message' });
    await waitFor(async () => ((await db('outbox').count<{ count: string }[]>('* as count'))[0]?.count === '0' ? true : undefined), {
      what: 'the outbox to empty',
    });
    expect(received).not.toContain('rolled-back-1');
    await relay.stop();
    await broker.close();
    await listener.close();
  });

  it('publishes every message once with two instances relaying one outbox: their passes skip the rows the other holds', async () => {
    const received: string[] = [];
    const listener = await collect('kit-two-relays-test', received);
    const brokers = ['kit-relay-a', 'kit-relay-b'].map(
      (name) =>
        new Broker({
          url: amqpUrl,
          name,
          logger,
          topology: async (channel) => void (await channel.assertExchange('kit.events', 'topic', { durable: true })),
        }),
    );
    for (const broker of brokers) await broker.start();
    const relays = brokers.map((broker) => new OutboxRelay({ db, broker, logger, idleDelayMs: 5, batchSizeMax: 20 }));
    const ids = Array.from({ length: 400 }, (_, index) => `two-relays-${index}`);
    for (let start = 0; start < ids.length; start += 50) {
      await db.transaction((tx) =>
        enqueueOutbox(
          tx,
          ids.slice(start, start + 50).map((messageId) => ({ messageId, exchange: 'kit.events', routingKey: 'a', type: 't', payload: {} })),
        ),
      );
    }
    // Both pass over the same rows at once, again and again, until none is left.
    const published = await Promise.all(
      relays.map(async (relay) => {
        let total = 0;
        for (let passes = 0; passes < 200; passes += 1) {
          const count = await relay.publishOnce();
          total += count;
          if (count === 0 && (await db('outbox').count<{ count: string }[]>('* as count'))[0]?.count === '0') break;
        }
        return total;
      }),
    );
    await waitFor(async () => (received.length >= ids.length ? true : undefined), { what: 'every message' });
    expect(published[0]).toBeGreaterThan(0);
    expect(published[1]).toBeGreaterThan(0);
    expect((published[0] ?? 0) + (published[1] ?? 0)).toBe(ids.length);
    expect([...received].sort()).toEqual([...ids].sort());
    for (const relay of relays) await relay.stop();
    for (const broker of brokers) await broker.close();
    await listener.close();
  });

  it('publishes handed-over messages right after their commit without a pass, and leaves them to the passes when the broker is gone', async () => {
    const received: string[] = [];
    const listener = await collect('kit-handover-test', received);
    const broker = new Broker({
      url: amqpUrl,
      name: 'kit-handover',
      logger,
      topology: async (channel) => void (await channel.assertExchange('kit.events', 'topic', { durable: true })),
    });
    await broker.start();
    // No pass runs during the first part: the idle delay is longer than the test.
    const relay = new OutboxRelay({ db, broker, logger, idleDelayMs: 60_000 });
    const messages = Array.from({ length: 5 }, (_, index) => ({
      messageId: `handed-${index}`,
      exchange: 'kit.events',
      routingKey: 'a',
      type: 't',
      payload: { n: index },
    }));
    const handOver = relay.handOver(messages);
    await db.transaction((tx) => enqueueOutbox(tx, messages));
    // A pass that runs between the commit and the publish leaves them alone: published once.
    expect(await relay.publishOnce()).toBe(0);
    // Not even locked (a lock writes to each row): their xmax was never set.
    const locks = await db.raw<{ rows: Array<{ xmax: string }> }>(`SELECT xmax::text AS xmax FROM outbox WHERE message_id LIKE 'handed-%'`);
    expect(locks.rows.map((row) => row.xmax)).toEqual(['0', '0', '0', '0', '0']);
    handOver.committed();
    await waitFor(async () => (messages.every((message) => received.includes(message.messageId)) ? true : undefined), {
      what: 'the handed-over messages',
    });
    await waitFor(async () => ((await db('outbox').count<{ count: string }[]>('* as count'))[0]?.count === '0' ? true : undefined), {
      what: 'their rows to go',
    });

    // Abandoned (the statement wrote nothing the caller meant): a later pass still owns any row.
    const orphan = { messageId: 'abandoned-1', exchange: 'kit.events', routingKey: 'a', type: 't', payload: {} };
    relay.handOver([orphan]).abandon();
    await db.transaction((tx) => enqueueOutbox(tx, [orphan]));
    expect(await relay.publishOnce()).toBe(1);

    // Broker gone between commit and publish: the rows stay, and a pass publishes them later.
    await broker.close();
    const late = { messageId: 'late-1', exchange: 'kit.events', routingKey: 'a', type: 't', payload: {} };
    const lateHandOver = relay.handOver([late]);
    await db.transaction((tx) => enqueueOutbox(tx, [late]));
    lateHandOver.committed();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await db('outbox').pluck('message_id')).toEqual(['late-1']);
    const again = new Broker({
      url: amqpUrl,
      name: 'kit-handover-2',
      logger,
      topology: async (channel) => void (await channel.assertExchange('kit.events', 'topic', { durable: true })),
    });
    await again.start();
    const relayAgain = new OutboxRelay({ db, broker: again, logger, idleDelayMs: 60_000 });
    expect(await relayAgain.publishOnce()).toBe(1);
    await waitFor(async () => (received.includes('late-1') && received.includes('abandoned-1') ? true : undefined), {
      what: 'the messages the passes published',
    });
    expect(received.filter((id) => id.startsWith('handed-'))).toHaveLength(5);
    await again.close();
    await listener.close();
  });

  it('stop waits for the hand-overs under way, their lingering deletes included, so nothing runs after the database closes', async () => {
    const received: string[] = [];
    const listener = await collect('kit-handover-stop-test', received);
    const broker = new Broker({
      url: amqpUrl,
      name: 'kit-handover-stop',
      logger,
      topology: async (channel) => void (await channel.assertExchange('kit.events', 'topic', { durable: true })),
    });
    await broker.start();
    const relay = new OutboxRelay({ db, broker, logger, idleDelayMs: 60_000, deleteLingerMs: 300 });
    const message = { messageId: 'stopping-1', exchange: 'kit.events', routingKey: 'a', type: 't', payload: {} };
    const handOver = relay.handOver([message]);
    await db.transaction((tx) => enqueueOutbox(tx, [message]));
    handOver.committed();
    await relay.stop();
    // Published and deleted by the time stop returns, though the delete lingered 300 ms.
    expect(await db('outbox').where({ message_id: 'stopping-1' }).pluck('message_id')).toEqual([]);
    await waitFor(async () => (received.includes('stopping-1') ? true : undefined), { what: 'the handed-over message' });
    await broker.close();
    await listener.close();
  });

  it("binds a service's ledger events queue to the results of the reference types it finishes, and no others", async () => {
    const broker = await ledgerEventsBroker('kit-ledger-events', 'kit.ledger-events');
    const finished: string[] = [];
    const finishers = new PostingFinishers();
    finishers.register('transfer', async (_tx, results) => {
      finished.push(...results.map((result) => result.commandId));
    });
    await startLedgerEventsConsumer({ broker, db, logger, queue: 'kit.ledger-events', finishers, lingerMs: 1 });

    const connection = await amqp.connect(amqpUrl);
    const channel = await connection.createConfirmChannel();
    const returned: string[] = [];
    channel.on('return', (message: amqp.Message) => returned.push(message.fields.routingKey));
    const publish = async (commandId: string, status: 'posted' | 'rejected', referenceType: string) => {
      const result = ledgerResult(commandId, status, { type: referenceType, id: commandId });
      // Both shapes of the event: a lone result, and the ledger's batch of results of one routing key.
      const payload = status === 'posted' ? { type: 'ledger.results.v1', results: [result] } : result;
      channel.publish(TOPOLOGY.ledgerEvents.exchange, ledgerResultRoutingKey(status, referenceType), Buffer.from(JSON.stringify(payload)), {
        mandatory: true,
      });
      await channel.waitForConfirms();
    };
    await publish('cmd_transfer_posted', 'posted', 'transfer');
    await publish('cmd_transfer_rejected', 'rejected', 'transfer');
    // Nothing in this vhost is bound to another service's results: the broker hands them back.
    await publish('cmd_withdrawal_posted', 'posted', 'withdrawal');
    await waitFor(async () => (finished.length === 2 && returned.length === 1 ? true : undefined), {
      what: 'the transfer results and the returned withdrawal result',
    });
    expect(finished.sort()).toEqual(['cmd_transfer_posted', 'cmd_transfer_rejected']);
    expect(returned).toEqual(['ledger.posted.withdrawal']);
    await connection.close();
    await broker.close();
  });

  it('stopping the ledger events consumer records the events it gathered before it returns', async () => {
    const queue = 'kit.ledger-events-stop';
    const broker = await ledgerEventsBroker('kit-ledger-events-stop', queue);
    const finished: string[] = [];
    const finishers = new PostingFinishers();
    finishers.register('payout', async (_tx, results) => {
      finished.push(...results.map((result) => result.commandId));
    });
    // A batch would gather for a minute: only stop() records it within the test.
    const events = await startLedgerEventsConsumer({ broker, db, logger, queue, finishers, lingerMs: 60_000 });
    const connection = await amqp.connect(amqpUrl);
    const channel = await connection.createConfirmChannel();
    const result = ledgerResult('cmd_payout_gathered', 'posted', { type: 'payout', id: 'po_gathered' });
    channel.publish(TOPOLOGY.ledgerEvents.exchange, ledgerResultRoutingKey('posted', 'payout'), Buffer.from(JSON.stringify(result)));
    await channel.waitForConfirms();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(finished).toEqual([]);
    await events.stop();
    expect(finished).toEqual(['cmd_payout_gathered']);
    await connection.close();
    await broker.close();
  });

  it('skips the statement for results this instance recorded from their replies, and still acknowledges and reports them', async () => {
    const queue = 'kit.ledger-events-recorded';
    const broker = await ledgerEventsBroker('kit-ledger-events-recorded', queue);
    const finished: string[] = [];
    const reported: string[] = [];
    const finishers = new PostingFinishers();
    finishers.register('payout', async (_tx, results) => {
      finished.push(...results.map((result) => result.commandId));
    });
    const fromReplies = new Set(['cmd_recorded_1', 'cmd_recorded_2']);
    const events = await startLedgerEventsConsumer({
      broker,
      db,
      logger,
      queue,
      finishers,
      lingerMs: 10,
      onFinished: (result) => reported.push(result.commandId),
      recordedFromReply: (result) => fromReplies.delete(result.commandId),
    });
    const connection = await amqp.connect(amqpUrl);
    const channel = await connection.createConfirmChannel();
    for (const commandId of ['cmd_recorded_1', 'cmd_not_recorded', 'cmd_recorded_2']) {
      const result = ledgerResult(commandId, 'posted', { type: 'payout', id: `po_${commandId}` });
      channel.publish(TOPOLOGY.ledgerEvents.exchange, ledgerResultRoutingKey('posted', 'payout'), Buffer.from(JSON.stringify(result)));
    }
    await channel.waitForConfirms();
    await waitFor(async () => (reported.length === 3 ? true : undefined), { what: 'the three results reported' });
    expect(finished).toEqual(['cmd_not_recorded']);
    expect(fromReplies.size).toBe(0);
    await events.stop();
    // Acknowledged: nothing comes back once the consumer is gone.
    await broker.close();
    const left = await channel.checkQueue(queue);
    expect(left.messageCount).toBe(0);
    await connection.close();
  });

  it('reconnects after the broker drops the connection and consumes again', async () => {
    const broker = new Broker({
      url: amqpUrl,
      name: 'kit-reconnect',
      logger,
      reconnectDelayMs: 50,
      topology: async (channel) => {
        await channel.assertExchange('kit.events', 'topic', { durable: true });
        await channel.assertQueue('kit-work', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        await channel.bindQueue('kit-work', 'kit.events', 'work');
      },
    });
    await broker.start();
    const handled: string[] = [];
    await consumeIdempotently({
      broker,
      db,
      logger,
      queue: 'kit-work',
      schema: z.object({ id: z.string() }),
      messageIdOf: (message) => message.id,
      handle: async (tx, message) => {
        await tx('effects').insert({ message_id: message.id });
        handled.push(message.id);
      },
    });
    const send = (id: string) => broker.publish('kit.events', 'work', Buffer.from(JSON.stringify({ id })));
    await send('m1');
    await send('m1');
    await waitFor(async () => (handled.includes('m1') ? true : undefined), { what: 'm1' });

    await run('rabbitmqctl', ['close_all_connections', '-p', vhost, 'test: drop connections']);
    await waitFor(async () => (broker.connectionCount >= 2 && broker.isConnected ? true : undefined), {
      what: 'the reconnect',
      timeoutMs: 20_000,
    });
    await send('m2');
    await waitFor(async () => (handled.includes('m2') ? true : undefined), { what: 'm2 after the reconnect' });
    // Redelivered or repeated messages took effect once.
    const effects = await db('effects').select('message_id');
    expect(effects.map((row: { message_id: string }) => row.message_id).sort()).toEqual(['m1', 'm2']);
    await broker.close();
  });
});

describe('a pool on a primary and its standbys (multi-host URL)', () => {
  it('keeps its connections while the primary stays the same host, asking which host it is in the background', async () => {
    const single = new URL(await createTestDatabase('kit_hosts'));
    // A host that refuses first, as a lost standby does: the resolver goes on to the primary.
    const url = `postgres://${single.username}@127.0.0.1:1,${single.host}${single.pathname}`;
    const db = createDb(url, { poolMax: 1 });
    try {
      const backendPid = async (): Promise<string> =>
        ((await db.raw<{ rows: Array<{ pid: string }> }>('SELECT pg_backend_pid()::text AS pid')).rows[0] as { pid: string }).pid;
      const first = await backendPid();
      const later: string[] = [];
      // Past the resolver's one-second answer, twice: each checkout then sees a stale answer.
      for (let round = 0; round < 3; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        later.push(await backendPid());
      }
      expect(later).toEqual([first, first, first]);
    } finally {
      await db.destroy();
    }
  });
});
