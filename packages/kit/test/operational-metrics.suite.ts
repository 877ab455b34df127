import net from 'node:net';
import {
  Broker,
  claimIdempotencyKey,
  createDb,
  createIdempotencyInFlightIndex,
  createIdempotencyTable,
  createLogger,
  createMetrics,
  createOutboxTable,
  type Db,
  MeteredBroker,
  registerIdempotencyGauge,
  registerOutboxGauges,
  registerQueueGauges,
  type ReportedQueue,
  type ServiceMetrics,
  storeFinalResponse,
} from '@wallet/kit';
import { AwaitingLedger, createAwaitingLedgerTable } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, waitFor } from '@wallet/kit/testing';

/** Real PostgreSQL and RabbitMQ (a fresh database and vhost); the registry is read as /metrics would serve it. */
const logger = createLogger({ service: 'kit-test', level: 'silent' });
let db: Db;
let amqpUrl: string;
let broker: MeteredBroker;
let metrics: ServiceMetrics;

beforeAll(async () => {
  db = createDb(await createTestDatabase('kit_operational_metrics'), { poolMax: 4 });
  await createOutboxTable(db);
  await createIdempotencyTable(db);
  await createIdempotencyInFlightIndex(db);
  await createAwaitingLedgerTable(db);
  amqpUrl = await createTestVhost('kit_operational_metrics');
  metrics = createMetrics('kit-test');
  broker = new MeteredBroker({ url: amqpUrl, name: 'kit-test', logger }, metrics);
  await broker.start();
});

afterAll(async () => {
  await broker?.close();
  await db?.destroy();
});

/** A sample's value in the exposition text (its name and labels, in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = text
    .split('\n')
    .find((each) => (each.startsWith(`${name}{`) || each.startsWith(`${name} `)) && wanted.every((pair) => each.includes(pair)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function scrape(of: ServiceMetrics = metrics): Promise<string> {
  return of.registry.metrics();
}

describe('queue gauges from passive declares', () => {
  const queues: ReportedQueue[] = [
    { name: 'work', deadLetter: false },
    { name: 'work.dlq', deadLetter: true },
    { name: 'never-declared', deadLetter: false },
  ];
  let queueMetrics: ServiceMetrics;

  beforeAll(async () => {
    await broker.declare(async (channel) => {
      await channel.assertQueue('work', { durable: true });
      await channel.assertQueue('work.dlq', { durable: true });
    });
    await broker.consume({ queue: 'work', prefetch: 1, onMessage: (message, channel) => channel.ack(message) });
    queueMetrics = createMetrics('kit-test');
    registerQueueGauges({ registry: queueMetrics.registry, broker, queues, amqpUrl, logger });
  });

  it('reports ready messages and consumers by queue, dead-letter queues marked, and leaves out a queue that does not exist', async () => {
    for (let index = 0; index < 3; index += 1) await broker.publish('', 'work.dlq', Buffer.from('{}'));
    const text = await scrape(queueMetrics);
    expect(sample(text, 'rabbitmq_queue_consumers', { queue: 'work', dead_letter: 'false' })).toBe(1);
    expect(sample(text, 'rabbitmq_queue_messages_ready', { queue: 'work.dlq', dead_letter: 'true' })).toBe(3);
    expect(sample(text, 'rabbitmq_queue_consumers', { queue: 'work.dlq', dead_letter: 'true' })).toBe(0);
    expect(sample(text, 'rabbitmq_queue_messages_ready', { queue: 'never-declared' })).toBeUndefined();
    // Management API only.
    expect(sample(text, 'rabbitmq_queue_messages_unacknowledged')).toBeUndefined();
    expect(sample(text, 'rabbitmq_queue_messages_redelivered_total')).toBeUndefined();

    // The failed declare closed a channel of its own: publishing goes on.
    await broker.publish('', 'work.dlq', Buffer.from('{}'));
    expect(sample(await scrape(queueMetrics), 'rabbitmq_queue_messages_ready', { queue: 'work.dlq', dead_letter: 'true' })).toBe(4);
  });

  it('answers at once without the queues while the broker is down', async () => {
    const down = new Broker({ url: amqpUrl, name: 'kit-test-down', logger });
    const downMetrics = createMetrics('kit-test');
    registerQueueGauges({ registry: downMetrics.registry, broker: down, queues, amqpUrl, logger });
    const startedAt = Date.now();
    const text = await scrape(downMetrics);
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(sample(text, 'rabbitmq_queue_messages_ready')).toBeUndefined();
    expect(text).toContain('# TYPE rabbitmq_queue_consumers gauge');
  });

  it('falls back to passive declares within the deadline when the management API does not answer', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets = new Set<net.Socket>();
    silent.on('connection', (socket) => sockets.add(socket));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const viaManagement = createMetrics('kit-test');
      registerQueueGauges({
        registry: viaManagement.registry,
        broker,
        queues,
        amqpUrl,
        managementUrl: `http://guest:guest@127.0.0.1:${port}`,
        logger,
      });
      const startedAt = Date.now();
      const text = await scrape(viaManagement);
      expect(Date.now() - startedAt).toBeLessThan(3500);
      expect(sample(text, 'rabbitmq_queue_consumers', { queue: 'work', dead_letter: 'false' })).toBe(1);
      expect(sample(text, 'rabbitmq_queue_messages_ready', { queue: 'work.dlq', dead_letter: 'true' })).toBe(4);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

/** Set with the broker's management API (the test containers' is); the local broker may run without the plugin. */
const managementUrl = process.env.TEST_AMQP_MANAGEMENT_URL;

(managementUrl ? describe : describe.skip)('queue gauges from the management API', () => {
  it('adds unacknowledged and redelivered counts', async () => {
    const url = new URL(managementUrl as string);
    const credentials = new URL(amqpUrl);
    url.username = credentials.username || 'guest';
    url.password = credentials.password || 'guest';
    const viaManagement = createMetrics('kit-test');
    registerQueueGauges({
      registry: viaManagement.registry,
      broker,
      queues: [
        { name: 'work', deadLetter: false },
        { name: 'work.dlq', deadLetter: true },
      ],
      amqpUrl,
      managementUrl: url.toString(),
      logger,
    });
    // The management API's figures trail the queue by its statistics interval.
    await waitFor(
      async () => {
        const text = await scrape(viaManagement);
        return sample(text, 'rabbitmq_queue_messages_ready', { queue: 'work.dlq', dead_letter: 'true' }) === 4 ? text : undefined;
      },
      { what: 'the management API to count the dead letters' },
    ).then((text) => {
      expect(sample(text, 'rabbitmq_queue_consumers', { queue: 'work', dead_letter: 'false' })).toBe(1);
      expect(sample(text, 'rabbitmq_queue_messages_unacknowledged', { queue: 'work', dead_letter: 'false' })).toBe(0);
      expect(sample(text, 'rabbitmq_queue_messages_redelivered_total', { queue: 'work' })).toBe(0);
    });
  });
});

describe('amqp_messages_redelivered_total', () => {
  it('counts the deliveries a consumer receives flagged redelivered, by queue', async () => {
    await broker.declare(async (channel) => {
      await channel.assertQueue('again', { durable: true });
    });
    const seen: boolean[] = [];
    await broker.consume({
      queue: 'again',
      prefetch: 1,
      onMessage: (message, channel) => {
        seen.push(message.fields.redelivered);
        // The first delivery goes back to the queue; the broker flags the second.
        if (message.fields.redelivered) channel.ack(message);
        else channel.nack(message, false, true);
      },
    });
    expect(sample(await scrape(), 'amqp_messages_redelivered_total', { queue: 'again' })).toBe(0);
    await broker.publish('', 'again', Buffer.from('{}'));
    await waitFor(async () => (seen.length === 2 ? true : undefined), { what: 'the redelivery' });
    expect(seen).toEqual([false, true]);
    expect(sample(await scrape(), 'amqp_messages_redelivered_total', { queue: 'again' })).toBe(1);
  });
});

describe('outbox gauges', () => {
  const outbox = createMetrics('kit-test');
  beforeAll(() => registerOutboxGauges(outbox.registry, [db], logger));
  afterEach(async () => {
    await db('outbox').delete();
  });

  async function addRows(count: number, ageSeconds: number): Promise<void> {
    await db.raw(
      `INSERT INTO outbox (message_id, exchange, routing_key, type, payload, created_at)
       SELECT 'msg-' || gen_random_uuid(), 'ex', 'key', 'test.v1', '{}', now() - make_interval(secs => ?) FROM generate_series(1, ?)`,
      [ageSeconds, count],
    );
  }

  it('reports the rows waiting and the age of the oldest, 0 when empty', async () => {
    let text = await scrape(outbox);
    expect(sample(text, 'outbox_messages')).toBe(0);
    expect(sample(text, 'outbox_oldest_message_age_seconds')).toBe(0);
    await addRows(2, 90);
    await addRows(1, 5);
    text = await scrape(outbox);
    expect(sample(text, 'outbox_messages')).toBe(3);
    expect(sample(text, 'outbox_oldest_message_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'outbox_oldest_message_age_seconds')).toBeLessThan(120);
  });

  it('estimates a backlog beyond 10 000 rows from its id range instead of counting it', async () => {
    await addRows(10_100, 1);
    // Published out of order: a gap in the middle the estimate cannot see.
    await db.raw('DELETE FROM outbox WHERE id IN (SELECT id FROM outbox ORDER BY id OFFSET 5000 LIMIT 50)');
    const range = (await db.raw<{ rows: Array<{ first: string; last: string }> }>('SELECT min(id) AS first, max(id) AS last FROM outbox'))
      .rows[0] as { first: string; last: string };
    expect(sample(await scrape(outbox), 'outbox_messages')).toBe(Number(range.last) - Number(range.first) + 1);
  });
});

describe('idempotency_keys_in_flight', () => {
  const keys = createMetrics('kit-test');
  beforeAll(() => registerIdempotencyGauge(keys.registry, db, logger));

  it('counts keys claimed until their answer is stored', async () => {
    const scope = { tenantId: 'tn_ops', environment: 'test' as const };
    expect(sample(await scrape(keys), 'idempotency_keys_in_flight')).toBe(0);
    const outcome = await claimIdempotencyKey(db, scope, 'key-1', 'a'.repeat(64));
    if (outcome.kind !== 'claimed') throw new Error(`expected a claim, got ${outcome.kind}`);
    await claimIdempotencyKey(db, scope, 'key-2', 'a'.repeat(64));
    expect(sample(await scrape(keys), 'idempotency_keys_in_flight')).toBe(2);
    await storeFinalResponse(db, outcome.claim, { status: 201, headers: {}, body: Buffer.from('{}') }, { replaceCompleted: false });
    expect(sample(await scrape(keys), 'idempotency_keys_in_flight')).toBe(1);
  });

  it('is counted on its partial index, not by reading the completed keys', async () => {
    await db.raw(
      `INSERT INTO idempotency_keys (tenant_id, environment, idempotency_key, fingerprint, status, lock_token, response_status, response_headers, response_body, completed_at, expires_at)
       SELECT 'tn_many', 'live', 'k-' || n, repeat('b', 64), 'completed', gen_random_uuid(), 201, '{}', '\\x7b7d', now(), now() + interval '1 day' FROM generate_series(1, 20000) n`,
    );
    await db.raw('ANALYZE idempotency_keys');
    const plan = (
      await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>("EXPLAIN SELECT count(*) FROM idempotency_keys WHERE status = 'in_progress'")
    ).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('idempotency_keys_in_flight');
    expect(plan).not.toContain('Seq Scan');
  });
});

describe('records awaiting the ledger', () => {
  let awaiting: AwaitingLedger;

  beforeAll(async () => {
    await db.raw('CREATE TABLE records (id text PRIMARY KEY, status text NOT NULL)');
    awaiting = new AwaitingLedger({ db, logger });
    awaiting.add({ recordType: 'thing', table: 'records', waiting: "r.status = 'pending'" });
  });

  it('reports the oldest record still waiting, looking past finished ones and letting them go', async () => {
    expect(await awaiting.oldestAgeSeconds('thing')).toBe(0);
    // More finished records, all older, than one statement looks at.
    await db.raw("INSERT INTO records (id, status) SELECT 'done-' || n, 'completed' FROM generate_series(1, 700) n");
    await db.raw(
      "INSERT INTO awaiting_ledger (record_type, record_id, since) SELECT 'thing', 'done-' || n, now() - interval '1 hour' FROM generate_series(1, 700) n",
    );
    await db('records').insert({ id: 'waiting-1', status: 'pending' });
    await awaiting.note({ type: 'thing', id: 'waiting-1' }, 30_000);

    const age = (await awaiting.oldestAgeSeconds('thing')) as number;
    expect(age).toBeGreaterThanOrEqual(30);
    expect(age).toBeLessThan(60);
    expect((await db('awaiting_ledger').select('record_id')).map((row: { record_id: string }) => row.record_id)).toEqual(['waiting-1']);

    await db('records').where({ id: 'waiting-1' }).update({ status: 'completed' });
    expect(await awaiting.oldestAgeSeconds('thing')).toBe(0);
    expect(await db('awaiting_ledger').select()).toEqual([]);
  });

  it('restarts the wait of a record noted again for its next step', async () => {
    await db('records').insert({ id: 'case-1', status: 'pending' });
    await awaiting.note({ type: 'thing', id: 'case-1' }, 600_000);
    await awaiting.note({ type: 'thing', id: 'case-1' }, 10_000);
    let age = (await awaiting.oldestAgeSeconds('thing')) as number;
    expect(age).toBeGreaterThanOrEqual(10);
    expect(age).toBeLessThan(60);
    // Deadlines of one turn share one statement, one record's twice included: the later one counts.
    await Promise.all([awaiting.note({ type: 'thing', id: 'case-1' }, 100_000), awaiting.note({ type: 'thing', id: 'case-1' }, 200_000)]);
    age = (await awaiting.oldestAgeSeconds('thing')) as number;
    expect(age).toBeGreaterThanOrEqual(200);
    expect(age).toBeLessThan(260);
  });
});
