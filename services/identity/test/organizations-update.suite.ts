import amqp from 'amqplib';
import { errorBodySchema, organizationSchema, TOPOLOGY, tenantEventV1Schema, type TenantEventV1 } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { countRows, type HttpResult, type IdentityHarness, internalToken, startIdentityHarness, tenantBody } from './support';

/**
 * Real: PostgreSQL, RabbitMQ and the identity service over HTTP. `tenant.updated` is read from a
 * queue of this test bound to identity's exchange, as the ledger's and payments' queues are.
 */
let identity: IdentityHarness;
let connection: amqp.ChannelModel;
let channel: amqp.Channel;
let eventsQueue: string;

beforeAll(async () => {
  identity = await startIdentityHarness();
  connection = await amqp.connect(identity.amqpUrl);
  channel = await connection.createChannel();
  eventsQueue = (await channel.assertQueue('', { exclusive: true })).queue;
  await channel.bindQueue(eventsQueue, TOPOLOGY.identityEvents.exchange, TOPOLOGY.identityEvents.tenantUpdatedRoutingKey);
});

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await identity?.close();
});

const received: TenantEventV1[] = [];

/** Every tenant.updated event published so far. */
async function drainEvents(): Promise<TenantEventV1[]> {
  for (let message = await channel.get(eventsQueue, { noAck: true }); message; message = await channel.get(eventsQueue, { noAck: true })) {
    received.push(tenantEventV1Schema.parse(JSON.parse(message.content.toString('utf8'))));
  }
  return received;
}

async function eventsOf(tenantId: string): Promise<TenantEventV1[]> {
  return (await drainEvents()).filter((event) => event.tenantId === tenantId);
}

async function newOrganization(config: Record<string, unknown> = {}): Promise<string> {
  const created = await identity.request('POST', '/v1/system/organizations', {
    body: tenantBody({
      name: 'Before Ltd',
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '5000.00', ...config },
    }),
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

function patch(id: string, body: unknown, options: { token?: string } = {}): Promise<HttpResult> {
  return identity.request('PATCH', `/v1/system/organizations/${id}`, { body, ...options });
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  return errorBodySchema.parse(result.body).error;
}

describe('PATCH /v1/system/organizations/{id}', () => {
  it('changes name and allowed currencies, publishes tenant.updated with the whole configuration and audits the change', async () => {
    const id = await newOrganization();
    const before = (await identity.request('GET', `/v1/system/organizations/${id}`)).body;

    const changed = await patch(id, { name: 'After Ltd', config: { allowedCurrencies: ['KES', 'EUR'] } });

    expect(changed.status).toBe(200);
    const organization = organizationSchema.parse(changed.body);
    expect(organization).toEqual({
      ...before,
      name: 'After Ltd',
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES', 'EUR'], maxTransactionAmount: '5000.00' },
    });
    expect((await identity.request('GET', `/v1/system/organizations/${id}`)).body).toEqual(organization);

    const [event] = await waitFor(async () => ((await eventsOf(id)).length > 0 ? eventsOf(id) : undefined), { what: 'tenant.updated' });
    expect(event).toMatchObject({
      type: 'tenant.updated.v1',
      tenantId: id,
      name: 'After Ltd',
      slug: before.slug,
      config: organization.config,
    });
    expect(Date.parse(event?.occurredAt ?? '')).toBeGreaterThan(Date.parse(organization.createdAt) - 1);

    const audit = await identity.db('audit_events').where({ tenant_id: id, action: 'tenant.updated' });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      environment: null,
      actor_type: 'system',
      actor_id: 'system',
      target_type: 'tenant',
      target_id: id,
      metadata: {
        before: { name: 'Before Ltd', 'config.allowedCurrencies': ['KES'] },
        after: { name: 'After Ltd', 'config.allowedCurrencies': ['KES', 'EUR'] },
      },
    });
  });

  it('stamps each change later than the one before, so readers keep the latest', async () => {
    const id = await newOrganization();
    await patch(id, { config: { allowedCurrencies: ['KES', 'USD'] } });
    await patch(id, { config: { allowedCurrencies: ['KES', 'USD', 'EUR'] } });
    const events = await waitFor(async () => ((await eventsOf(id)).length === 2 ? eventsOf(id) : undefined), {
      what: 'two tenant.updated events',
    });
    const stamps = events.map((event) => Date.parse(event.occurredAt));
    const latest = events[stamps.indexOf(Math.max(...stamps))];
    expect(latest?.config.allowedCurrencies).toEqual(['KES', 'USD', 'EUR']);
  });

  it('carries the ceiling over to a new default currency by value', async () => {
    const id = await newOrganization({ allowedCurrencies: ['KES', 'UGX'] });
    const changed = await patch(id, { config: { defaultCurrency: 'UGX' } });
    expect(changed.status).toBe(200);
    expect(changed.body.config).toEqual({ defaultCurrency: 'UGX', allowedCurrencies: ['KES', 'UGX'], maxTransactionAmount: '5000' });
  });

  it('takes the ceiling as its exact decimal text', async () => {
    const id = await newOrganization();
    const changed = await identity.request('PATCH', `/v1/system/organizations/${id}`, {
      rawBody: '{"config": {"maxTransactionAmount": 1000000.10}}',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.config.maxTransactionAmount).toBe('1000000.10');
  });

  it('answers a change that changes nothing with the organization, and records and publishes nothing', async () => {
    const id = await newOrganization();
    const same = await patch(id, { name: 'Before Ltd', config: { allowedCurrencies: ['KES'], maxTransactionAmount: '5000' } });
    expect(same.status).toBe(200);
    expect(same.body.name).toBe('Before Ltd');
    expect(await countRows(identity.db, 'audit_events', { tenant_id: id, action: 'tenant.updated' })).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsOf(id)).toEqual([]);
  });

  describe('refuses invalid changes and changes nothing', () => {
    let id: string;
    let before: unknown;
    beforeAll(async () => {
      id = await newOrganization({ allowedCurrencies: ['KES', 'USD'] });
      before = (await identity.request('GET', `/v1/system/organizations/${id}`)).body;
    });

    it.each([
      ['an empty body', {}, 'VALIDATION_ERROR'],
      ['an empty config', { config: {} }, 'VALIDATION_ERROR'],
      ['the slug, which is not changeable', { slug: 'new-slug' }, 'VALIDATION_ERROR'],
      ['an unknown config field', { config: { status: 'suspended' } }, 'VALIDATION_ERROR'],
      ['an empty name', { name: '   ' }, 'VALIDATION_ERROR'],
      ['no allowed currency', { config: { allowedCurrencies: [] } }, 'VALIDATION_ERROR'],
      ['a malformed currency', { config: { allowedCurrencies: ['KES', 'kes'] } }, 'VALIDATION_ERROR'],
      ['a currency twice', { config: { allowedCurrencies: ['KES', 'USD', 'KES'] } }, 'VALIDATION_ERROR'],
      ['the default currency left out of the allowed ones', { config: { allowedCurrencies: ['USD'] } }, 'VALIDATION_ERROR'],
      ['a default currency that is not allowed', { config: { defaultCurrency: 'EUR' } }, 'VALIDATION_ERROR'],
      ['a ceiling finer than the default currency', { config: { maxTransactionAmount: '10.001' } }, 'INVALID_AMOUNT'],
      ['a ceiling of zero', { config: { maxTransactionAmount: '0' } }, 'INVALID_AMOUNT'],
      [
        'a ceiling the new default currency cannot hold',
        { config: { defaultCurrency: 'USD', maxTransactionAmount: '1.005' } },
        'INVALID_AMOUNT',
      ],
    ])('%s', async (_name, body, code) => {
      const error = expectError(await patch(id, body), 400, code);
      if (code === 'VALIDATION_ERROR') expect(error.details).toBeDefined();
      expect((await identity.request('GET', `/v1/system/organizations/${id}`)).body).toEqual(before);
      expect(await countRows(identity.db, 'audit_events', { tenant_id: id })).toBe(0);
    });

    it('published nothing for any of them', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await eventsOf(id)).toEqual([]);
    });
  });

  it('answers 404 TENANT_NOT_FOUND for an unknown organization', async () => {
    expectError(await patch('tn_00000000000000000000000000', { name: 'Nobody' }), 404, 'TENANT_NOT_FOUND');
  });

  it('refuses a tenant token', async () => {
    const id = await newOrganization();
    const token = internalToken({ surface: 'tenant', tenantId: id, environment: 'live', keyId: 'ak_x', scopes: ['tenant:manage'] });
    expectError(await patch(id, { name: 'Taken over' }, { token }), 403, 'INSUFFICIENT_SCOPE');
    expect((await identity.request('GET', `/v1/system/organizations/${id}`)).body.name).toBe('Before Ltd');
  });
});
