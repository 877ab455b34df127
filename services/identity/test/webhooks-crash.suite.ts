import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import amqp from 'amqplib';
import { derivedId, type PlatformEventV1, TOPOLOGY } from '@wallet/contracts';
import { announcedEvent, createDb, type Db, platformEventsMessage } from '@wallet/kit';
import { createTestDatabase, createTestVhost, freePort, waitFor, WebhookReceiver } from '@wallet/kit/testing';
import { INTERNAL_SECRET, internalToken, TEST_MASTER_KEY } from './support';

/*
 * Identity, the service that delivers webhooks, killed with SIGKILL while its attempts are in
 * flight (the receiver holds them unanswered): started again, it delivers every event, each
 * processed once by a receiver that de-duplicates by id. Nothing is lost between the broker, the
 * log and the deliveries.
 */
const ROOT = path.resolve(__dirname, '../../..');
const EVENTS = 30;

let env: NodeJS.ProcessEnv;
let db: Db;
let identity: ChildProcess | null = null;
const receiver = new WebhookReceiver();

function spawnIdentity(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'services/identity/src/main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(): Promise<void> {
  await waitFor(
    async () => {
      const answer = await fetch(`http://127.0.0.1:${env.IDENTITY_PORT}/readyz`).catch(() => null);
      return answer?.ok ? true : undefined;
    },
    { timeoutMs: 60_000, what: 'identity ready' },
  );
}

beforeAll(async () => {
  env = {
    ...process.env,
    IDENTITY_DATABASE_URL: await createTestDatabase('identity_crash', { migratedFor: 'identity' }),
    AMQP_URL: await createTestVhost('identity_crash'),
    IDENTITY_PORT: String(await freePort()),
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    SECRETS_ENCRYPTION_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: 'silent',
    SMTP_URL: '',
    DASHBOARD_URL: '',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_RETRY_DELAYS_SECONDS: '0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2',
    WEBHOOK_TIMEOUT_MS: '1000',
  };
  db = createDb(env.IDENTITY_DATABASE_URL as string, { poolMax: 1 });
});

afterAll(async () => {
  identity?.kill('SIGKILL');
  await receiver.close();
  await db?.destroy();
});

function announced(tenantId: string, index: number): PlatformEventV1 {
  const createdAt = new Date(Date.now() + index).toISOString();
  const objectId = `tx_${index % 7}`;
  return {
    type: 'platform.event.v1',
    tenantId,
    objectId,
    event: {
      id: derivedId('event', `${tenantId}:${index}`, Date.parse(createdAt)),
      type: 'transfer.completed',
      createdAt,
      environment: 'test',
      data: { object: { id: objectId, amount: `${index}.50` } },
    },
  };
}

async function publish(messages: readonly PlatformEventV1[]): Promise<void> {
  const connection = await amqp.connect(env.AMQP_URL as string);
  try {
    const channel = await connection.createConfirmChannel();
    // As a busy batch of ledger results announces them: many events to a message.
    for (let start = 0; start < messages.length; start += 10) {
      const { payload } = platformEventsMessage(messages.slice(start, start + 10).map((message) => announcedEvent(message)));
      channel.publish(TOPOLOGY.platformEvents.exchange, 'events', Buffer.from(JSON.stringify(payload)), { persistent: true });
    }
    await channel.waitForConfirms();
  } finally {
    await connection.close();
  }
}

describe('webhook delivery through a SIGKILL of identity', () => {
  it('delivers every event once identity is back, each processed once', async () => {
    identity = spawnIdentity();
    await ready();
    const tenantId = `tn_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const token = internalToken({ surface: 'tenant', tenantId, environment: 'test', scopes: ['webhooks:manage'] });
    const created = await fetch(`http://127.0.0.1:${env.IDENTITY_PORT}/v1/developer/webhook-endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-token': token },
      body: JSON.stringify({ url: await receiver.start() }),
    });
    receiver.secrets = [((await created.json()) as { secret: string }).secret];
    receiver.mode = { kind: 'hang' };
    const messages = Array.from({ length: EVENTS }, (_, index) => announced(tenantId, index));
    await publish(messages);
    await waitFor(async () => (receiver.attempts.length >= 3 ? true : undefined), { timeoutMs: 20_000, what: 'attempts in flight' });

    identity.kill('SIGKILL');
    await new Promise((resolve) => identity?.once('exit', resolve));
    receiver.releaseHung();
    receiver.mode = { kind: 'ok' };
    identity = spawnIdentity();
    await ready();

    await waitFor(async () => (receiver.processed.size === EVENTS ? true : undefined), {
      timeoutMs: 60_000,
      what: 'every event processed',
    });
    expect(new Set(receiver.processed.keys())).toEqual(new Set(messages.map((message) => message.event.id)));
    expect(receiver.attempts.every((attempt) => attempt.verifiedWith.length === 1)).toBe(true);
    const counts = await db('webhook_deliveries').select('status').count('* as n').groupBy('status');
    expect(counts).toEqual([{ status: 'succeeded', n: String(EVENTS) }]);
    expect(await db('platform_events').count('* as n')).toEqual([{ n: String(EVENTS) }]);
  });
});
