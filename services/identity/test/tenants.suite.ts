import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { errorBodySchema, TOPOLOGY, tenantEventV1Schema, tenantSchema } from '@wallet/contracts';
import { signInternalToken } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { countRows, type IdentityHarness, internalToken, startIdentityHarness, tenantBody, uniqueSlug } from './support';

/** Real: PostgreSQL, RabbitMQ and the identity service over HTTP. Nothing is faked. */
let identity: IdentityHarness;
let connection: ChannelModel;
let channel: Channel;
const received: ConsumeMessage[] = [];

beforeAll(async () => {
  identity = await startIdentityHarness();
  // Our own queue on the service's exchange, as the ledger binds its own.
  connection = await amqp.connect(identity.amqpUrl);
  channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, TOPOLOGY.identityEvents.exchange, '#');
  await channel.consume(
    queue,
    (message) => {
      if (message) received.push(message);
    },
    { noAck: true },
  );
});

afterAll(async () => {
  await connection?.close();
  await identity?.close();
});

function expectErrorBody(result: { status: number; headers: Headers; body: unknown }, status: number, code: string) {
  expect(result.status).toBe(status);
  const parsed = errorBodySchema.parse(result.body);
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.correlationId).toBe(result.headers.get('x-correlation-id'));
  return parsed.error;
}

describe('POST /v1/tenants', () => {
  it('creates a tenant and reads it back with its ceiling as an exact decimal string', async () => {
    const slug = uniqueSlug('exact');
    // 1000000.50 as a JSON number token: JSON.stringify could never write the trailing zero.
    const rawBody = `{"name":"Exact Money","slug":"${slug}","config":{"defaultCurrency":"USD","allowedCurrencies":["USD","UGX"],"maxTransactionAmount":1000000.50}}`;
    const created = await identity.request('POST', '/v1/tenants', { rawBody });
    expect(created.status).toBe(201);
    const tenant = tenantSchema.parse(created.body);
    expect(tenant).toEqual({
      id: expect.stringMatching(/^tn_[0-9A-Z]{26}$/),
      name: 'Exact Money',
      slug,
      config: { defaultCurrency: 'USD', allowedCurrencies: ['USD', 'UGX'], maxTransactionAmount: '1000000.50' },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const read = await identity.request('GET', `/v1/tenants/${tenant.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(tenant);
    const stored = await identity.db('tenants').where({ id: tenant.id }).first('max_transaction_amount');
    expect(stored.max_transaction_amount).toBe('1000000.50');
  });

  it('writes the amount at the currency scale whatever form it was sent in', async () => {
    const created = await identity.request('POST', '/v1/tenants', { body: tenantBody({ config: { maxTransactionAmount: '250.5' } }) });
    expect(created.status).toBe(201);
    expect(created.body.config.maxTransactionAmount).toBe('250.50');
    const shilling = await identity.request('POST', '/v1/tenants', {
      rawBody: `{"name":"Kampala","slug":"${uniqueSlug('ugx')}","config":{"defaultCurrency":"UGX","allowedCurrencies":["UGX"],"maxTransactionAmount":5000000}}`,
    });
    expect(shilling.status).toBe(201);
    expect(shilling.body.config.maxTransactionAmount).toBe('5000000');
  });

  it('publishes tenant.created.v1 to identity.events once the tenant is committed', async () => {
    const created = await identity.request('POST', '/v1/tenants', { body: tenantBody(), correlationId: 'corr-tenant-event-1' });
    expect(created.status).toBe(201);
    const message = await waitFor(
      async () => received.find((candidate) => JSON.parse(candidate.content.toString()).tenantId === created.body.id),
      { what: 'tenant.created message' },
    );
    const event = tenantEventV1Schema.parse(JSON.parse(message.content.toString()));
    expect(event).toEqual({
      type: 'tenant.created.v1',
      messageId: expect.stringMatching(/^msg_/),
      tenantId: created.body.id,
      name: created.body.name,
      slug: created.body.slug,
      config: created.body.config,
      occurredAt: created.body.createdAt,
    });
    expect(message.fields.exchange).toBe(TOPOLOGY.identityEvents.exchange);
    expect(message.fields.routingKey).toBe(TOPOLOGY.identityEvents.tenantCreatedRoutingKey);
    expect(message.properties.messageId).toBe(event.messageId);
    expect(message.properties.headers?.['x-correlation-id']).toBe('corr-tenant-event-1');
    // Confirmed by the broker, so gone from the outbox.
    await waitFor(
      async () => ((await identity.db('outbox').where({ message_id: event.messageId }).first()) === undefined ? true : undefined),
      { what: 'the outbox row to be removed' },
    );
  });

  it('refuses a slug already taken and writes nothing', async () => {
    const slug = uniqueSlug('taken');
    const first = await identity.request('POST', '/v1/tenants', { body: tenantBody({ slug }) });
    expect(first.status).toBe(201);
    const tenantsBefore = await countRows(identity.db, 'tenants');

    const again = await identity.request('POST', '/v1/tenants', { body: tenantBody({ slug, name: 'Someone Else' }) });
    const error = expectErrorBody(again, 409, 'SLUG_TAKEN');
    expect(error.details).toEqual({ slug });
    expect(await countRows(identity.db, 'tenants')).toBe(tenantsBefore);
    // The event is written in the tenant's transaction, so no tenant row means no event either
    // (published rows leave the outbox, so its row count proves nothing here).
    expect(await countRows(identity.db, 'tenants', { slug })).toBe(1);
  });

  it('gives a slug to exactly one of several concurrent requests', async () => {
    const slug = uniqueSlug('race');
    const results = await Promise.all([1, 2, 3].map(() => identity.request('POST', '/v1/tenants', { body: tenantBody({ slug }) })));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409]);
    expect(await countRows(identity.db, 'tenants', { slug })).toBe(1);
  });

  it.each([
    ['an unknown currency', { allowedCurrencies: ['USD', 'XYZ'] }],
    ['a default currency that is not allowed', { defaultCurrency: 'EUR' }],
    ['a currency listed twice', { allowedCurrencies: ['USD', 'USD'] }],
    ['a lowercase currency code', { defaultCurrency: 'usd', allowedCurrencies: ['usd'] }],
  ])('refuses %s with VALIDATION_ERROR naming the field', async (_label, config) => {
    const tenantsBefore = await countRows(identity.db, 'tenants');
    const result = await identity.request('POST', '/v1/tenants', { body: tenantBody({ config }) });
    const error = expectErrorBody(result, 400, 'VALIDATION_ERROR');
    expect(error.details?.fields).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^config\./) })]));
    expect(await countRows(identity.db, 'tenants')).toBe(tenantsBefore);
  });

  it.each([
    ['more fraction digits than USD has', '10.001'],
    ['exponent notation', '1e6'],
    ['a negative amount', '-5'],
    ['zero', '0'],
    ['text', 'lots'],
  ])('refuses %s as INVALID_AMOUNT', async (_label, token) => {
    const tenantsBefore = await countRows(identity.db, 'tenants');
    const rawBody = `{"name":"Bad","slug":"${uniqueSlug('bad')}","config":{"defaultCurrency":"USD","allowedCurrencies":["USD"],"maxTransactionAmount":${/^[-\d.e]+$/.test(token) ? token : JSON.stringify(token)}}}`;
    const error = expectErrorBody(await identity.request('POST', '/v1/tenants', { rawBody }), 400, 'INVALID_AMOUNT');
    expect(error.details).toMatchObject({ field: 'config.maxTransactionAmount', currencyCode: 'USD' });
    expect(await countRows(identity.db, 'tenants')).toBe(tenantsBefore);
  });

  it('refuses a fraction of a currency that has none', async () => {
    const body = tenantBody({ config: { defaultCurrency: 'UGX', allowedCurrencies: ['UGX'], maxTransactionAmount: '100.5' } });
    const error = expectErrorBody(await identity.request('POST', '/v1/tenants', { body }), 400, 'INVALID_AMOUNT');
    expect(error.details).toMatchObject({ currencyCode: 'UGX', problem: 'TOO_MANY_FRACTION_DIGITS' });
  });

  it('refuses a malformed body with the same error shape', async () => {
    expectErrorBody(await identity.request('POST', '/v1/tenants', { rawBody: '{"name":' }), 400, 'MALFORMED_JSON');
    const error = expectErrorBody(await identity.request('POST', '/v1/tenants', { body: { name: 'No slug' } }), 400, 'VALIDATION_ERROR');
    expect(error.details?.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'slug' }), expect.objectContaining({ path: 'config' })]),
    );
  });

  it('refuses a request without an internal token', async () => {
    const error = expectErrorBody(
      await identity.request('POST', '/v1/tenants', { body: tenantBody(), token: null }),
      401,
      'INVALID_INTERNAL_TOKEN',
    );
    expect(error.message).toMatch(/internal token/i);
  });

  it('refuses an internal token signed with another secret', async () => {
    const forged = signInternalToken('some-other-secret-that-is-long-enough-000', {
      surface: 'system',
      tenantId: null,
      environment: null,
      keyId: null,
      scopes: [],
      actor: null,
    });
    expectErrorBody(await identity.request('POST', '/v1/tenants', { body: tenantBody(), token: forged }), 401, 'INVALID_INTERNAL_TOKEN');
  });

  it('refuses a tenant credential: tenants are created by the platform operator only', async () => {
    const token = internalToken({ surface: 'tenant', tenantId: 'tn_someone', environment: 'test', scopes: ['tenant:manage'] });
    expectErrorBody(await identity.request('POST', '/v1/tenants', { body: tenantBody(), token }), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /v1/tenants/{id}', () => {
  it('answers 404 TENANT_NOT_FOUND for an unknown id', async () => {
    expectErrorBody(await identity.request('GET', '/v1/tenants/tn_00000000000000000000000000'), 404, 'TENANT_NOT_FOUND');
  });

  it('requires an internal token', async () => {
    expectErrorBody(await identity.request('GET', '/v1/tenants/tn_whatever', { token: null }), 401, 'INVALID_INTERNAL_TOKEN');
  });
});

describe('POST /v1/system/organizations without SMTP_URL', () => {
  it('creates the invited admin and reports that no invite email was sent', async () => {
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Quiet', email: 'quiet@example.com' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.admin).toMatchObject({
      email: 'quiet@example.com',
      orgRole: 'org-admin',
      status: 'invited',
      inviteEmailSent: false,
    });
    const member = await identity.db('team_members').where({ id: created.body.admin.id }).first('invite_token_hash', 'invite_sent_at');
    expect(member.invite_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(member.invite_sent_at).toBeNull();
  });
});
