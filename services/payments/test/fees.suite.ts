import amqp from 'amqplib';
import { type AuditRecordV1, TOPOLOGY } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { quoteFee } from '../src/features/fees/quote-fee';
import { platform, publishedDefault, systemSchedules, tenant } from './fees-support';
import { type PaymentsHarness, startPaymentsHarness, tenantToken } from './support';

/** Fee schedules on both surfaces, the quote, and their audit records, against a real database and broker. */
let payments: PaymentsHarness;
let connection: amqp.ChannelModel;
let channel: amqp.Channel;
/** A queue of this test bound to the audit exchange: what the relay published, as identity would receive it. */
let auditQueue: string;
const auditSeen: AuditRecordV1[] = [];

beforeAll(async () => {
  payments = await startPaymentsHarness();
  connection = await amqp.connect(payments.amqpUrl);
  channel = await connection.createChannel();
  auditQueue = (await channel.assertQueue('', { exclusive: true })).queue;
  await channel.bindQueue(auditQueue, TOPOLOGY.auditRecords.exchange, TOPOLOGY.auditRecords.routingKey);
  await channel.consume(
    auditQueue,
    (message) => {
      if (message) auditSeen.push(JSON.parse(message.content.toString('utf8')) as AuditRecordV1);
    },
    { noAck: true },
  );
});

afterAll(async () => {
  await connection?.close();
  await payments?.close();
});

describe('the platform surface', () => {
  it('creates a draft with the platform commission, adds rules, publishes it as the default, and reads it back', async () => {
    const tenantId = await payments.newTenant();
    const calls = platform(payments);
    const created = await calls.create(tenantId, { name: 'Standard pricing', platformCommissionBps: 2500 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^fs_[0-9A-Z]{26}$/),
      tenantId,
      name: 'Standard pricing',
      platformCommissionBps: 2500,
      status: 'draft',
      isDefault: false,
      defaultOnPublish: false,
      origin: 'system',
      createdBy: 'system',
      publishedAt: null,
      publishedBy: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      rules: [],
    });

    // Number tokens reach the service as their exact text: 1000000.50 is not 1000000.5 rounded through a float.
    const rule = await payments.request('POST', `${systemSchedules(tenantId)}/${created.body.id}/rules`, {
      rawBody:
        '{"transactionType":"payout","currencyCode":"KES","minAmount":0.01,"maxAmount":1000000.50,"flatFee":1.5,"percentageFee":1.50,"minFee":"10","maxFee":250}',
    });
    expect(rule.status).toBe(201);
    expect(rule.body).toEqual({
      id: expect.stringMatching(/^fr_[0-9A-Z]{26}$/),
      scheduleId: created.body.id,
      transactionType: 'payout',
      currencyCode: 'KES',
      minAmount: '0.01',
      maxAmount: '1000000.50',
      flatFee: '1.50',
      percentageFee: '1.5',
      minFee: '10.00',
      maxFee: '250.00',
      createdAt: expect.any(String),
    });
    const second = await calls.addRule(tenantId, created.body.id, { transactionType: 'transfer', currencyCode: 'UGX', flatFee: 500 });
    expect(second.body).toMatchObject({ minAmount: null, maxAmount: null, flatFee: '500', percentageFee: '0', minFee: null, maxFee: null });

    const published = await calls.publish(tenantId, created.body.id, { makeDefault: true });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({
      id: created.body.id,
      status: 'published',
      isDefault: true,
      platformCommissionBps: 2500,
      publishedAt: expect.any(String),
      publishedBy: 'system',
    });
    expect(published.body.rules.map((each: { id: string }) => each.id)).toEqual([rule.body.id, second.body.id]);

    expect((await calls.get(tenantId, created.body.id)).body).toEqual(published.body);
    const listed = await calls.list(tenantId);
    expect(listed.status).toBe(200);
    const { rules: _rules, ...withoutRules } = published.body;
    expect(listed.body).toEqual({ data: [withoutRules], nextCursor: null });
  });

  it('makes a schedule created with isDefault the default when it is published, unless makeDefault says otherwise', async () => {
    const tenantId = await payments.newTenant();
    const calls = platform(payments);
    const first = await calls.create(tenantId, { name: 'Asked to be default', isDefault: true, platformCommissionBps: 100 });
    expect(first.body).toMatchObject({ isDefault: false, defaultOnPublish: true, status: 'draft' });
    expect((await calls.publish(tenantId, first.body.id)).body).toMatchObject({ isDefault: true });

    const second = await calls.create(tenantId, { name: 'Also asked', isDefault: true, platformCommissionBps: 100 });
    expect((await calls.publish(tenantId, second.body.id, { makeDefault: false })).body).toMatchObject({
      status: 'published',
      isDefault: false,
    });
    expect((await calls.get(tenantId, first.body.id)).body.isDefault).toBe(true);

    const third = await calls.create(tenantId, { name: 'Not asked', platformCommissionBps: 100 });
    expect((await calls.publish(tenantId, third.body.id)).body).toMatchObject({ status: 'published', isDefault: false });
  });

  it('refuses tenant credentials, no credentials, and a tenant id that cannot be one', async () => {
    const tenantId = await payments.newTenant();
    const created = await platform(payments).create(tenantId);
    const asTenant = await payments.request('POST', systemSchedules(tenantId), {
      token: tenantToken(tenantId),
      body: { name: 'x', platformCommissionBps: 0 },
    });
    expect([asTenant.status, asTenant.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const readAsTenant = await payments.request('GET', `${systemSchedules(tenantId)}/${created.body.id}`, { token: tenantToken(tenantId) });
    expect(readAsTenant.status).toBe(403);
    const anonymous = await payments.request('GET', systemSchedules(tenantId), { token: null });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'INVALID_INTERNAL_TOKEN']);
    const notATenant = await payments.request('POST', systemSchedules('acme'), { body: { name: 'x', platformCommissionBps: 0 } });
    expect([notATenant.status, notATenant.body.error.code]).toEqual([404, 'TENANT_NOT_FOUND']);
    // The operator on the tenant surface has no tenant to act for.
    const systemOnTenantRoute = await payments.request('GET', '/v1/admin/fee-schedules');
    expect([systemOnTenantRoute.status, systemOnTenantRoute.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it.each([
    ['a commission over 10000 bps', { name: 'x', platformCommissionBps: 10_001 }],
    ['a negative commission', { name: 'x', platformCommissionBps: -1 }],
    ['a fractional commission', { name: 'x', platformCommissionBps: 12.5 }],
    ['no commission', { name: 'x' }],
    ['an empty name', { name: ' ', platformCommissionBps: 0 }],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_name, body) => {
    const tenantId = await payments.newTenant();
    const refused = await platform(payments).create(tenantId, body);
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await payments.db('fee_schedules').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '0' },
    ]);
  });

  it('answers 404 for a schedule of another tenant named under this one', async () => {
    const owner = await payments.newTenant();
    const other = await payments.newTenant();
    const created = await platform(payments).create(owner);
    const calls = platform(payments);
    for (const result of [
      await calls.get(other, created.body.id),
      await calls.addRule(other, created.body.id, { transactionType: 'deposit', currencyCode: 'KES', flatFee: 1 }),
      await calls.publish(other, created.body.id, { makeDefault: true }),
    ]) {
      expect([result.status, result.body.error.code]).toEqual([404, 'FEE_SCHEDULE_NOT_FOUND']);
    }
    expect((await calls.get(owner, created.body.id)).body).toMatchObject({ status: 'draft', isDefault: false, rules: [] });
  });
});

describe('the tenant surface', () => {
  it('refuses a platformCommissionBps in the body with 400 VALIDATION_ERROR and stores nothing', async () => {
    const tenantId = await payments.newTenant();
    const refused = await tenant(payments, tenantId).create({ name: 'Cheap', platformCommissionBps: 0 });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(JSON.stringify(refused.body.error.details)).toContain('platformCommissionBps');
    expect((await tenant(payments, tenantId).list()).body.data).toEqual([]);
  });

  it("gives a tenant's schedule the commission of the default schedule, 0 without one, taken again when it is published", async () => {
    const tenantId = await payments.newTenant();
    const own = tenant(payments, tenantId);
    const early = await own.create({ name: 'Before any default' });
    expect(early.body).toMatchObject({ platformCommissionBps: 0, origin: 'tenant', status: 'draft' });

    await publishedDefault(payments, tenantId, [], 300);
    const later = await own.create({ name: 'After the default' });
    expect(later.body.platformCommissionBps).toBe(300);

    await publishedDefault(payments, tenantId, [], 450);
    // Drafts made under older rates take the current default's when published, whether they become the default or not.
    expect((await own.publish(early.body.id, { makeDefault: false })).body).toMatchObject({ platformCommissionBps: 450, isDefault: false });
    expect((await own.publish(later.body.id, { makeDefault: true })).body).toMatchObject({ platformCommissionBps: 450, isDefault: true });
  });

  it('lists newest first in pages, with a status filter, refusing bad limits and cursors', async () => {
    const tenantId = await payments.newTenant();
    const own = tenant(payments, tenantId);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await own.create({ name: `Schedule ${index}` })).body.id);
    await own.publish(ids[1] as string);

    const first = await own.list('?limit=2');
    expect(first.body.data.map((schedule: { id: string }) => schedule.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.data[0]).not.toHaveProperty('rules');
    const second = await own.list(`?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((schedule: { id: string }) => schedule.id)).toEqual([ids[2], ids[1]]);
    const third = await own.list(`?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    expect((await own.list()).body.data).toHaveLength(5);
    expect((await own.list('?status=published')).body.data.map((schedule: { id: string }) => schedule.id)).toEqual([ids[1]]);

    for (const query of ['?limit=0', '?limit=201', '?status=archived'])
      expect((await own.list(query)).body.error.code).toBe('VALIDATION_ERROR');
    expect((await own.list('?cursor=not-a-cursor')).body.error.code).toBe('INVALID_CURSOR');
  });

  it('shares schedules between the live and test environments of the tenant', async () => {
    const tenantId = await payments.newTenant();
    const created = await tenant(payments, tenantId, { environment: 'live' }).create({ name: 'Shared' });
    const fromTest = tenant(payments, tenantId, { environment: 'test' });
    expect((await fromTest.get(created.body.id)).body).toMatchObject({ id: created.body.id, name: 'Shared' });
    expect((await fromTest.addRule(created.body.id, { transactionType: 'transfer', currencyCode: 'KES', flatFee: 5 })).status).toBe(201);
    expect((await tenant(payments, tenantId, { environment: 'live' }).get(created.body.id)).body.rules).toHaveLength(1);
  });

  it("answers 404 FEE_SCHEDULE_NOT_FOUND to another tenant naming this tenant's schedule, leaving it as it was", async () => {
    const owner = await payments.newTenant();
    const created = await tenant(payments, owner).create({ name: 'Mine' });
    const intruder = tenant(payments, await payments.newTenant());
    const attempts = [
      await intruder.get(created.body.id),
      await intruder.addRule(created.body.id, { transactionType: 'transfer', currencyCode: 'KES', flatFee: 1 }),
      await intruder.publish(created.body.id, { makeDefault: true }),
      await intruder.get('fs_00000000000000000000000000'),
    ];
    for (const attempt of attempts) expect([attempt.status, attempt.body.error.code]).toEqual([404, 'FEE_SCHEDULE_NOT_FOUND']);
    expect((await tenant(payments, owner).get(created.body.id)).body).toMatchObject({ status: 'draft', isDefault: false, rules: [] });
    expect((await intruder.list()).body.data).toEqual([]);
  });
});

describe('GET /v1/fees/quote', () => {
  let tenantId: string;
  let scheduleId: string;
  let ruleIds: string[];

  beforeAll(async () => {
    tenantId = await payments.newTenant();
    ({ scheduleId, ruleIds } = await publishedDefault(
      payments,
      tenantId,
      [
        { transactionType: 'transfer', currencyCode: 'KES', maxAmount: 100, flatFee: 5 },
        { transactionType: 'transfer', currencyCode: 'KES', minAmount: '100.01', maxAmount: 10_000, percentageFee: 1.5, minFee: 10 },
        { transactionType: 'transfer', currencyCode: 'KES', minAmount: '10000.01', flatFee: 20, percentageFee: 1, maxFee: 300 },
        { transactionType: 'payout', currencyCode: 'UGX', flatFee: 500, percentageFee: '0.5' },
        { transactionType: 'deposit', currencyCode: 'KWD', percentageFee: '0.25' },
      ],
      1000,
    ));
  });

  it.each([
    ['a flat fee at the top of the lowest band', 'transfer', 'KES', '100', '5.00', 0],
    ['the minimum fee of the middle band, from its inclusive bottom', 'transfer', 'KES', '100.01', '10.00', 1],
    ['a percent inside the middle band', 'transfer', 'KES', '1000', '15.00', 1],
    ['a percent at the inclusive top of the middle band', 'transfer', 'KES', '10000.00', '150.00', 1],
    ['flat plus percent above the middle band', 'transfer', 'KES', '10000.01', '120.00', 2],
    ['the maximum fee of the open top band', 'transfer', 'KES', '99999999', '300.00', 2],
    ['flat plus a half percent in UGX, a half shilling rounded up', 'payout', 'UGX', '1100', '506', 3],
    ['flat plus a half percent in UGX, under a half rounded down', 'payout', 'UGX', '1099', '505', 3],
    ['a quarter percent in KWD, a half fils rounded up', 'deposit', 'KWD', '0.2', '0.001', 4],
  ])('charges %s', async (_name, transactionType, currencyCode, amount, fee, rule) => {
    const quoted = await tenant(payments, tenantId, { scopes: ['fees:read'] }).quote(transactionType, currencyCode, amount);
    expect(quoted.status).toBe(200);
    expect(quoted.body).toEqual({ transactionType, currencyCode, amount: quoted.body.amount, fee, scheduleId, ruleId: ruleIds[rule] });
  });

  it('writes the amount at the currency scale', async () => {
    const quoted = await tenant(payments, tenantId).quote('transfer', 'KES', '50.5');
    expect(quoted.body).toMatchObject({ amount: '50.50', fee: '5.00' });
  });

  it.each([
    ['another currency', 'transfer', 'UGX', '1000'],
    ['another transaction type', 'withdrawal', 'KES', '1000'],
    ['a type with no rule in that currency', 'deposit', 'KES', '1000'],
  ])('charges 0 with null ids for %s', async (_name, transactionType, currencyCode, amount) => {
    const quoted = await tenant(payments, tenantId).quote(transactionType, currencyCode, amount);
    expect(quoted.status).toBe(200);
    expect(quoted.body).toMatchObject({ fee: currencyCode === 'KES' ? '0.00' : '0', scheduleId: null, ruleId: null });
  });

  it('charges 0 to a tenant without a default schedule, even with a published one', async () => {
    const lonely = await payments.newTenant();
    const created = await platform(payments).create(lonely, { name: 'Not default', platformCommissionBps: 0 });
    await platform(payments).addRule(lonely, created.body.id, { transactionType: 'transfer', currencyCode: 'KES', flatFee: 5 });
    await platform(payments).publish(lonely, created.body.id, { makeDefault: false });
    expect((await tenant(payments, lonely).quote('transfer', 'KES', '10')).body).toEqual({
      transactionType: 'transfer',
      currencyCode: 'KES',
      amount: '10.00',
      fee: '0.00',
      scheduleId: null,
      ruleId: null,
    });
  });

  it.each([
    ['finer than the currency', 'KES', '10.001', 'INVALID_AMOUNT'],
    ['a fraction of UGX', 'UGX', '10.5', 'INVALID_AMOUNT'],
    ['exponent notation', 'KES', '1e3', 'INVALID_AMOUNT'],
    ['zero', 'KES', '0', 'INVALID_AMOUNT'],
    ['negative', 'KES', '-5', 'INVALID_AMOUNT'],
    ['an unsupported currency', 'XYZ', '10', 'VALIDATION_ERROR'],
  ])('refuses an amount %s with 400', async (_name, currencyCode, amount, code) => {
    const quoted = await tenant(payments, tenantId).quote('transfer', currencyCode, amount);
    expect([quoted.status, quoted.body.error.code]).toEqual([400, code]);
  });

  it('refuses an unknown transaction type and a missing amount', async () => {
    expect((await tenant(payments, tenantId).quote('refund', 'KES', '10')).body.error.code).toBe('VALIDATION_ERROR');
    const missing = await payments.request('GET', '/v1/fees/quote?transactionType=transfer&currencyCode=KES', {
      token: tenantToken(tenantId),
    });
    expect(missing.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('agrees with quoteFee read inside a transaction, which adds the platform commission', async () => {
    const cases: Array<[string, string, string]> = [
      ['transfer', 'KES', '1000'],
      ['transfer', 'KES', '12345.67'],
      ['payout', 'UGX', '3'],
      ['deposit', 'KWD', '0.999'],
      ['withdrawal', 'KES', '5'],
    ];
    for (const [transactionType, currencyCode, amount] of cases) {
      const overHttp = (await tenant(payments, tenantId).quote(transactionType, currencyCode, amount)).body;
      const inTransaction = await payments.db.transaction((tx) =>
        quoteFee(tx, tenantId, transactionType as 'transfer', currencyCode, amount),
      );
      expect({ fee: inTransaction.fee, scheduleId: inTransaction.scheduleId, ruleId: inTransaction.ruleId }).toEqual({
        fee: overHttp.fee,
        scheduleId: overHttp.scheduleId,
        ruleId: overHttp.ruleId,
      });
    }
    expect(await quoteFee(payments.db, tenantId, 'transfer', 'KES', '1000')).toEqual({
      fee: '15.00',
      commission: '1.50',
      scheduleId,
      ruleId: ruleIds[1],
      platformCommissionBps: 1000,
    });
    expect(await quoteFee(payments.db, tenantId, 'payout', 'UGX', '1001')).toEqual({
      fee: '505',
      commission: '51',
      scheduleId,
      ruleId: ruleIds[3],
      platformCommissionBps: 1000,
    });
    expect(await quoteFee(payments.db, tenantId, 'withdrawal', 'KES', '5')).toEqual({
      fee: '0.00',
      commission: '0.00',
      scheduleId: null,
      ruleId: null,
      platformCommissionBps: 0,
    });
    await expect(quoteFee(payments.db, tenantId, 'transfer', 'KES', '1.001')).rejects.toMatchObject({ code: 'INVALID_AMOUNT' });
  });
});

describe('audit records', () => {
  it('publishes fee_schedule.created, rule_added, rule_removed and published through the outbox, tenant-wide', async () => {
    const tenantId = await payments.newTenant();
    const own = tenant(payments, tenantId, { actor: { type: 'team_member', id: 'usr_finance' }, scopes: ['fees:manage'] });
    const created = await own.create({ name: 'Audited' });
    const rule = await own.addRule(created.body.id, { transactionType: 'transfer', currencyCode: 'KES', flatFee: 2 });
    const dropped = await own.addRule(created.body.id, { transactionType: 'payout', currencyCode: 'KES', minAmount: 10, flatFee: '1.5' });
    expect((await own.removeRule(created.body.id, dropped.body.id)).status).toBe(200);
    const published = await own.publish(created.body.id, { makeDefault: true });
    // Who made and who published it stays on the schedule, for readers without the audit trail.
    expect(published.body).toMatchObject({ createdBy: 'usr_finance', publishedBy: 'usr_finance', publishedAt: expect.any(String) });
    const bySystem = await platform(payments).create(tenantId, { name: 'By the platform', platformCommissionBps: 700 });

    const records = await waitFor(
      async () => {
        const mine = auditSeen.filter((record) => record.tenantId === tenantId);
        return mine.length >= 6 ? mine : undefined;
      },
      { what: 'the six audit records' },
    );
    const byAction = (action: string, targetId: string, ruleId?: string) =>
      records.find(
        (record) => record.action === action && record.targetId === targetId && (ruleId === undefined || record.metadata.ruleId === ruleId),
      );
    expect(byAction('fee_schedule.created', created.body.id)).toMatchObject({
      type: 'audit.record.v1',
      environment: null,
      actorType: 'team_member',
      actorId: 'usr_finance',
      targetType: 'fee_schedule',
      metadata: { apiKeyId: 'ak_payments_tests', name: 'Audited', platformCommissionBps: 0, origin: 'tenant', surface: 'tenant' },
    });
    expect(byAction('fee_schedule.rule_added', created.body.id, rule.body.id)).toMatchObject({
      environment: null,
      actorId: 'usr_finance',
      targetType: 'fee_schedule',
      metadata: { ruleId: rule.body.id, transactionType: 'transfer', currencyCode: 'KES', flatFee: '2.00' },
    });
    expect(byAction('fee_schedule.rule_removed', created.body.id)).toMatchObject({
      environment: null,
      actorType: 'team_member',
      actorId: 'usr_finance',
      targetType: 'fee_schedule',
      metadata: {
        ruleId: dropped.body.id,
        transactionType: 'payout',
        currencyCode: 'KES',
        minAmount: '10.00',
        maxAmount: null,
        flatFee: '1.50',
        percentageFee: '0',
        surface: 'tenant',
      },
    });
    expect(byAction('fee_schedule.published', created.body.id)).toMatchObject({
      environment: null,
      targetType: 'fee_schedule',
      metadata: { makeDefault: true, previousDefaultScheduleId: null, ruleCount: 1 },
    });
    expect(byAction('fee_schedule.created', bySystem.body.id)).toMatchObject({
      actorType: 'system',
      actorId: 'system',
      metadata: { platformCommissionBps: 700, origin: 'system' },
    });
    for (const record of records) expect(record.messageId).toMatch(/^msg_/);
    await waitFor(
      async () => ((await payments.db('outbox').count<{ count: string }[]>('* as count'))[0]?.count === '0' ? true : undefined),
      { what: 'an empty outbox' },
    );
  });

  it('records nothing for a refused change', async () => {
    const tenantId = await payments.newTenant();
    const created = await tenant(payments, tenantId).create({ name: 'Refusals' });
    await tenant(payments, tenantId).addRule(created.body.id, {
      transactionType: 'transfer',
      currencyCode: 'KES',
      maxAmount: 10,
      flatFee: 1,
    });
    const overlapping = await tenant(payments, tenantId).addRule(created.body.id, {
      transactionType: 'transfer',
      currencyCode: 'KES',
      minAmount: 10,
      flatFee: 1,
    });
    expect(overlapping.status).toBe(409);
    expect((await tenant(payments, tenantId).removeRule(created.body.id, 'fr_00000000000000000000000000')).status).toBe(404);
    await tenant(payments, tenantId).publish(created.body.id);
    const kept = (await tenant(payments, tenantId).get(created.body.id)).body.rules[0].id;
    expect((await tenant(payments, tenantId).removeRule(created.body.id, kept)).status).toBe(409);
    expect((await tenant(payments, tenantId).publish(created.body.id)).status).toBe(409);
    // A later record proves the relay went past the refusals.
    const marker = await tenant(payments, tenantId).create({ name: 'Marker' });
    const records = await waitFor(
      async () => {
        const mine = auditSeen.filter((record) => record.tenantId === tenantId);
        return mine.some((record) => record.targetId === marker.body.id) ? mine : undefined;
      },
      { what: 'the marker record' },
    );
    expect(records.map((record) => record.action).sort()).toEqual([
      'fee_schedule.created',
      'fee_schedule.created',
      'fee_schedule.published',
      'fee_schedule.rule_added',
    ]);
  });
});
