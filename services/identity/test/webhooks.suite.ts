import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { derivedId, type EventType, type PlatformEventV1, TOPOLOGY } from '@wallet/contracts';
import { announcedEvent, platformEventsMessage } from '@wallet/kit';
import { waitFor, WebhookReceiver } from '@wallet/kit/testing';
import { type IdentityHarness, internalToken, startIdentityHarness } from './support';

/*
 * Events announced on `platform.events` are logged once and delivered to each subscribed
 * endpoint with Standard Webhooks signatures, to a real receiver that verifies them with the
 * `standardwebhooks` library and processes each event id once.
 */
let identity: IdentityHarness;
let connection: amqp.ChannelModel;
let channel: amqp.ConfirmChannel;

beforeAll(async () => {
  identity = await startIdentityHarness({
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_RETRY_DELAYS_SECONDS: '0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1,1,1,1',
    WEBHOOK_TIMEOUT_MS: '1000',
  });
  connection = await amqp.connect(identity.amqpUrl);
  channel = await connection.createConfirmChannel();
});

afterAll(async () => {
  await connection?.close();
  await identity?.close();
});

/** Waits until `check` holds (kit's waitFor waits for a value, and false is one). */
function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<true> {
  return waitFor(async () => ((await check()) ? true : undefined), { timeoutMs });
}

function newTenant(): string {
  return `tn_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

function tokenOf(tenantId: string, environment: 'test' | 'live' = 'test'): string {
  return internalToken({ surface: 'tenant', tenantId, environment, scopes: ['webhooks:manage', 'events:read'] });
}

let counter = 0;
function announced(tenantId: string, type: EventType, objectId: string, environment: 'test' | 'live' = 'test'): PlatformEventV1 {
  counter += 1;
  const createdAt = new Date(Date.now() + counter).toISOString();
  return {
    type: 'platform.event.v1',
    tenantId,
    objectId,
    event: {
      id: derivedId('event', `${objectId}:${type}:${counter}`, Date.parse(createdAt)),
      type,
      createdAt,
      environment,
      data: { object: { id: objectId, amount: '1000000000000000.10', status: type.split('.')[1] } },
    },
  };
}

/** Publishes the events as the services do, one `platform.events.v1` message each. */
async function publish(...messages: PlatformEventV1[]): Promise<void> {
  await publishRaw(...messages.map((message) => platformEventsMessage([announcedEvent(message)]).payload));
}

async function publishRaw(...payloads: unknown[]): Promise<void> {
  for (const payload of payloads)
    channel.publish(TOPOLOGY.platformEvents.exchange, 'events', Buffer.from(JSON.stringify(payload)), {
      persistent: true,
      messageId: `msg_${randomUUID()}`,
    });
  await channel.waitForConfirms();
}

async function createEndpoint(tenantId: string, url: string, body: Record<string, unknown> = {}) {
  const created = await identity.request('POST', '/v1/developer/webhook-endpoints', { token: tokenOf(tenantId), body: { url, ...body } });
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string };
}

describe('webhook endpoints and deliveries', () => {
  let receiver: WebhookReceiver;
  let url: string;

  beforeEach(async () => {
    receiver = new WebhookReceiver();
    url = await receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('shows the secret once, delivers each event signed and logs it, exactly as GET /v1/events shows it', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url);
    expect(endpoint.secret).toMatch(/^whsec_/);
    receiver.secrets = [endpoint.secret];
    const fetched = await identity.request('GET', `/v1/developer/webhook-endpoints/${endpoint.id}`, { token: tokenOf(tenantId) });
    expect(fetched.body).not.toHaveProperty('secret');

    const completed = announced(tenantId, 'transfer.completed', 'tx_1');
    await publish(completed, completed);
    await until(() => receiver.processed.has(completed.event.id), 10_000);
    const [attempt] = receiver.attempts;
    expect(attempt?.verifiedWith).toEqual([0]);
    const logged = await identity.request('GET', `/v1/events/${completed.event.id}`, { token: tokenOf(tenantId) });
    expect(attempt?.body).toBe(JSON.stringify(logged.body));
    // The amount crossed the broker and the log as the exact decimal it was.
    expect(attempt?.body).toContain('"amount":"1000000000000000.10"');
    const deliveries = await identity.request('GET', `/v1/developer/webhook-endpoints/${endpoint.id}/deliveries`, {
      token: tokenOf(tenantId),
    });
    expect(deliveries.body.data).toEqual([expect.objectContaining({ eventId: completed.event.id, status: 'succeeded' })]);
    expect(await identity.db('platform_events').where({ id: completed.event.id }).count('* as n')).toEqual([{ n: '1' }]);
  });

  it('records the events of a batch message in order, and still reads the one-event message of the first release', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url);
    receiver.secrets = [endpoint.secret];
    const batch = Array.from({ length: 6 }, (_, index) => announced(tenantId, 'transfer.completed', `tx_${index % 2}`));
    const firstRelease = announced(tenantId, 'wallet.frozen', 'wl_1');
    // A number past 2^53 in an object crosses as it was written: the old message is parsed losslessly.
    const oldText = JSON.stringify(firstRelease).replace('"status":"frozen"', '"status":"frozen","version":9007199254740993');
    await publishRaw(platformEventsMessage(batch.map((message) => announcedEvent(message))).payload);
    channel.publish(TOPOLOGY.platformEvents.exchange, 'wallet.frozen', Buffer.from(oldText), { persistent: true });
    await channel.waitForConfirms();
    await until(() => receiver.processed.size === batch.length + 1, 10_000);
    for (const object of ['tx_0', 'tx_1']) {
      const order = batch.filter((message) => message.objectId === object).map((message) => message.event.id);
      expect([...receiver.processed.keys()].filter((id) => order.includes(id))).toEqual(order);
    }
    const logged = await identity.request('GET', `/v1/events/${firstRelease.event.id}`, { token: tokenOf(tenantId) });
    expect(logged.status).toBe(200);
    expect(receiver.attempts.find((attempt) => attempt.body.includes(firstRelease.event.id))?.body).toContain('"version":9007199254740993');
  });

  it('keeps delivering while the receiver is down, and each event is processed once when it is back', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url);
    receiver.secrets = [endpoint.secret];
    receiver.mode = { kind: 'status', status: 503 };
    const events = Array.from({ length: 20 }, (_, index) => announced(tenantId, 'deposit.completed', `dep_${index % 5}`));
    await publish(...events);
    await until(() => receiver.attempts.length >= 10, 10_000);
    receiver.mode = { kind: 'ok' };
    await until(() => receiver.processed.size === events.length, 20_000);
    expect([...receiver.processed.keys()].sort()).toEqual(events.map((message) => message.event.id).sort());
    // Each object's events arrived in the order they were announced.
    for (let object = 0; object < 5; object += 1) {
      const announcedOrder = events.filter((message) => message.objectId === `dep_${object}`).map((message) => message.event.id);
      expect([...receiver.processed.keys()].filter((id) => announcedOrder.includes(id))).toEqual(announcedOrder);
    }
  });

  it('waits as Retry-After asks, and stops for good on 410 Gone: the endpoint is disabled and the audit trail says why', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url);
    receiver.secrets = [endpoint.secret];
    receiver.mode = { kind: 'status', status: 429, headers: { 'retry-after': '2' } };
    const first = announced(tenantId, 'wallet.frozen', 'wl_1');
    await publish(first);
    await until(() => receiver.attempts.length === 1, 10_000);
    const firstAt = Date.now();
    await until(() => receiver.attempts.length === 2, 10_000);
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(1_500);

    receiver.mode = { kind: 'status', status: 410 };
    await until(async () => {
      const found = await identity.request('GET', `/v1/developer/webhook-endpoints/${endpoint.id}`, { token: tokenOf(tenantId) });
      return found.body.enabled === false && found.body.disabledReason === 'gone';
    });
    const audit = await identity.db('audit_events').where({ tenant_id: tenantId, action: 'webhook_endpoint.disabled' });
    expect(audit).toHaveLength(1);
    const attemptsBefore = receiver.attempts.length;
    await publish(announced(tenantId, 'wallet.unfrozen', 'wl_1'));
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.attempts).toHaveLength(attemptsBefore);
  });

  it('signs with both secrets during a rotation, and with the new one alone after it', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url);
    const rotated = await identity.request('POST', `/v1/developer/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      token: tokenOf(tenantId),
      body: { expiresInSeconds: 3600 },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previousSecretExpiresAt).not.toBeNull();
    receiver.secrets = [endpoint.secret, rotated.body.secret];
    const during = announced(tenantId, 'payout.requested', 'pc_1');
    await publish(during);
    await until(() => receiver.processed.has(during.event.id), 10_000);
    expect(receiver.attempts.at(-1)?.verifiedWith).toEqual([0, 1]);

    await identity.request('POST', `/v1/developer/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      token: tokenOf(tenantId),
      body: { expiresInSeconds: 0 },
    });
    const after = announced(tenantId, 'payout.approved', 'pc_1');
    await publish(after);
    await until(() => receiver.attempts.some((attempt) => attempt.id === after.event.id), 10_000);
    expect(receiver.attempts.at(-1)?.verifiedWith).toEqual([]);
  });

  it('sends a test event on demand, and replays one event or every failed one since a time', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url, { eventTypes: ['transfer.failed'] });
    receiver.secrets = [endpoint.secret];
    const test = await identity.request('POST', `/v1/developer/webhook-endpoints/${endpoint.id}/test`, { token: tokenOf(tenantId) });
    expect(test.status).toBe(202);
    await until(() => receiver.processed.get(test.body.id)?.type === 'webhook_endpoint.test', 10_000);

    const notSubscribed = announced(tenantId, 'transfer.completed', 'tx_2');
    const failed = announced(tenantId, 'transfer.failed', 'tx_3');
    await publish(notSubscribed, failed);
    await until(() => receiver.processed.has(failed.event.id), 10_000);
    expect(receiver.processed.has(notSubscribed.event.id)).toBe(false);
    const replayed = await identity.request('POST', `/v1/developer/webhook-endpoints/${endpoint.id}/replay`, {
      token: tokenOf(tenantId),
      body: { eventId: notSubscribed.event.id },
    });
    expect(replayed.body).toEqual({ replayed: 1 });
    await until(() => receiver.processed.has(notSubscribed.event.id), 10_000);

    await identity.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).update({ status: 'failed' });
    const since = await identity.request('POST', `/v1/developer/webhook-endpoints/${endpoint.id}/replay`, {
      token: tokenOf(tenantId),
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(since.body).toEqual({ replayed: 3 });
    await until(() => receiver.attempts.filter((attempt) => attempt.id === failed.event.id).length === 2, 10_000);
  });

  it('follows no redirect: a 3xx is a failed attempt', async () => {
    const tenantId = newTenant();
    const endpoint = await createEndpoint(tenantId, url);
    receiver.secrets = [endpoint.secret];
    receiver.mode = { kind: 'status', status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } };
    await publish(announced(tenantId, 'wallet.created', 'wl_9'));
    await until(() => receiver.attempts.length >= 2, 10_000);
    const [delivery] = (
      await identity.request('GET', `/v1/developer/webhook-endpoints/${endpoint.id}/deliveries`, { token: tokenOf(tenantId) })
    ).body.data as Array<{ status: string; attempts: Array<{ responseStatus: number }> }>;
    expect(delivery?.status).toBe('pending');
    expect(delivery?.attempts[0]?.responseStatus).toBe(302);
  });

  it('keeps tenants and environments apart: events, endpoints and deliveries', async () => {
    const [tenantA, tenantB] = [newTenant(), newTenant()];
    const endpoint = await createEndpoint(tenantA, url);
    receiver.secrets = [endpoint.secret];
    const live = announced(tenantA, 'transfer.completed', 'tx_live', 'live');
    const other = announced(tenantB, 'transfer.completed', 'tx_b');
    const own = announced(tenantA, 'transfer.completed', 'tx_test');
    await publish(live, other, own);
    await until(() => receiver.processed.has(own.event.id), 10_000);
    expect([...receiver.processed.keys()]).toEqual([own.event.id]);
    const listed = await identity.request('GET', '/v1/events', { token: tokenOf(tenantA) });
    expect(listed.body.data.map((event: { id: string }) => event.id)).toEqual([own.event.id]);
    expect((await identity.request('GET', `/v1/events/${other.event.id}`, { token: tokenOf(tenantA) })).status).toBe(404);
    expect((await identity.request('GET', `/v1/events/${live.event.id}`, { token: tokenOf(tenantA) })).status).toBe(404);
    expect((await identity.request('GET', `/v1/developer/webhook-endpoints/${endpoint.id}`, { token: tokenOf(tenantB) })).status).toBe(404);
    expect(
      (await identity.request('GET', `/v1/developer/webhook-endpoints/${endpoint.id}`, { token: tokenOf(tenantA, 'live') })).status,
    ).toBe(404);
  });
});

describe('an idle delivery worker', () => {
  it('looks for due deliveries about once a poll, not in a loop', async () => {
    const commits = async () => {
      const [row] = (await identity.db.raw('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows as Array<{
        xact_commit: string;
      }>;
      return Number(row?.xact_commit ?? 0);
    };
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await commits();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // A poll a second, the relay's passes and this test's own reads: a few dozen at most, where a loop makes thousands.
    expect((await commits()) - before).toBeLessThan(60);
  });
});

describe('the event log', () => {
  it('lists events newest first, filtered by types, object and time, and pages with a cursor', async () => {
    const tenantId = newTenant();
    const events = [
      announced(tenantId, 'wallet.created', 'wl_log'),
      announced(tenantId, 'deposit.completed', 'dep_log'),
      announced(tenantId, 'transfer.completed', 'tx_log'),
      announced(tenantId, 'transfer.failed', 'tx_log2'),
    ];
    await publish(...events);
    const list = async (query: string) => {
      const page = await identity.request('GET', `/v1/events${query}`, { token: tokenOf(tenantId) });
      expect(page.status).toBe(200);
      return page.body as { data: Array<{ id: string }>; nextCursor: string | null };
    };
    await until(async () => (await list('')).data.length === events.length);
    const ids = events.map((message) => message.event.id);
    expect((await list('')).data.map((event) => event.id)).toEqual([...ids].reverse());
    expect((await list('?type=transfer.completed,transfer.failed')).data.map((event) => event.id)).toEqual([ids[3], ids[2]]);
    expect((await list('?objectId=dep_log')).data.map((event) => event.id)).toEqual([ids[1]]);
    const after = events[2]?.event.createdAt ?? '';
    expect((await list(`?createdFrom=${after}`)).data.map((event) => event.id)).toEqual([ids[3], ids[2]]);
    const first = await list('?limit=3');
    expect(first.data).toHaveLength(3);
    expect((await list(`?limit=3&cursor=${encodeURIComponent(first.nextCursor ?? '')}`)).data.map((event) => event.id)).toEqual([ids[0]]);
    const unknown = await identity.request('GET', '/v1/events?type=transfer.teleported', { token: tokenOf(tenantId) });
    expect(unknown.status).toBe(400);
  });
});

describe('webhook endpoints and private addresses', () => {
  let guarded: IdentityHarness;
  beforeAll(async () => {
    guarded = await startIdentityHarness();
  });
  afterAll(async () => {
    await guarded?.close();
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.0.0.7/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[fd00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
  ])('refuses %s with 422 WEBHOOK_URL_NOT_ALLOWED and stores nothing', async (target) => {
    const tenantId = newTenant();
    const created = await guarded.request('POST', '/v1/developer/webhook-endpoints', { token: tokenOf(tenantId), body: { url: target } });
    expect(created.status).toBe(422);
    expect(created.body.error.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(await guarded.db('webhook_endpoints').where({ tenant_id: tenantId })).toEqual([]);
  });

  it('refuses http for a live endpoint', async () => {
    const created = await guarded.request('POST', '/v1/developer/webhook-endpoints', {
      token: tokenOf(newTenant(), 'live'),
      body: { url: 'http://93.184.216.34/hook' },
    });
    expect(created.status).toBe(422);
  });
});
