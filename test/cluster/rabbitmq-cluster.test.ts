import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Broker, type Channel, createLogger } from '@wallet/kit';
import { freePort, waitFor } from '@wallet/kit/testing';
import { declareLedgerTopology } from '../../services/ledger/src/topology';
import { declarePaymentsTopology } from '../../services/payments/src/topology';
import { declareTreasuryTopology } from '../../services/treasury/src/topology';
import { type RabbitCluster, startRabbitCluster } from '../../scripts/lib/rabbitmq-cluster';

/**
 * Three RabbitMQ nodes side by side, one cluster (scripts/lib/rabbitmq-cluster.ts): what the
 * services' queues become on it, and a service's broker getting past the node it was connected
 * to being stopped.
 */
const logger = createLogger({ service: 'cluster-test', level: 'silent' });
const QUEUE = 'cluster-test.work';
let cluster: RabbitCluster;
const brokers: Broker[] = [];

const declareWorkQueue = async (channel: Channel): Promise<void> => {
  await channel.assertQueue(QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
};

function broker(name: string): Broker {
  const made = new Broker({
    url: cluster.amqpUrl,
    name,
    logger,
    topology: declareWorkQueue,
    reconnectDelayMs: 100,
    reconnectDelayMaxMs: 500,
  });
  brokers.push(made);
  return made;
}

beforeAll(async () => {
  const nodes = [];
  for (let index = 1; index <= 3; index++)
    nodes.push({ name: `wallet-test-${process.pid}-${index}`, amqpPort: await freePort(), distributionPort: await freePort() });
  cluster = await startRabbitCluster(mkdtempSync(path.join(os.tmpdir(), 'wallet-rabbit-cluster-')), nodes);
}, 180_000);

afterAll(async () => {
  for (const each of brokers) await each.close();
  await cluster?.stop();
}, 120_000);

test('the three nodes form one cluster', async () => {
  await waitFor(async () => ((await cluster.runningNodes()).length === 3 ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 500,
    what: 'three running nodes',
  });
});

test("every durable queue of the ledger's, payments' and treasury's topologies is a quorum queue with a member on each node", async () => {
  const declaring = broker('cluster-test-topology');
  await declaring.start();
  const channel = await declaring.openChannel();
  await declareLedgerTopology(channel, 2);
  for (const declare of [declarePaymentsTopology, declareTreasuryTopology]) await declare(channel);
  await channel.close();
  const queues = await cluster.queues();
  const durable = queues.filter((queue) => queue.durable);
  expect(durable.length).toBeGreaterThan(8);
  for (const queue of durable) {
    expect({ name: queue.name, type: queue.type }).toEqual({ name: queue.name, type: 'quorum' });
    expect({ name: queue.name, members: [...queue.members].sort() }).toEqual({
      name: queue.name,
      members: cluster.nodes.map((node) => `${node.name}@localhost`).sort(),
    });
  }
});

test('a broker whose node stops reconnects to another, declares its topology again, and no confirmed message is lost', async () => {
  const [first] = cluster.nodes;
  if (!first) throw new Error('no nodes');
  const publisher = broker('cluster-test-publisher');
  await publisher.start();
  expect(publisher.connectedTo).toBe(cluster.urlOf(first));
  // Confirmed by the queue's leader on the first node (declared through it) and its followers.
  await publisher.publish('', QUEUE, Buffer.from('before'));

  await cluster.stopNode(first);
  await waitFor(async () => (publisher.isConnected ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: 'the publisher to reconnect',
  });
  expect(publisher.connectedTo).not.toBe(cluster.urlOf(first));
  expect(publisher.connectionCount).toBe(2);
  await publisher.publish('', QUEUE, Buffer.from('after'));

  // A consumer starting while the first node is down gets past it.
  const received: string[] = [];
  const consumer = broker('cluster-test-consumer');
  await consumer.start();
  expect(consumer.connectedTo).not.toBe(cluster.urlOf(first));
  await consumer.consume({
    queue: QUEUE,
    prefetch: 10,
    onMessage: (message, channel) => {
      received.push(message.content.toString());
      channel.ack(message);
    },
  });
  await waitFor(async () => (received.length >= 2 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100, what: 'both messages' });
  expect(received).toEqual(['before', 'after']);
  expect((await cluster.runningNodes(cluster.nodes[1])).sort()).toEqual(
    cluster.nodes
      .slice(1)
      .map((node) => `${node.name}@localhost`)
      .sort(),
  );
}, 180_000);
