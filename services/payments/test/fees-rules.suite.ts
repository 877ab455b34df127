import { platform, publishedDefault, tenant } from './fees-support';
import { type PaymentsHarness, startPaymentsHarness } from './support';

/** Rules of a schedule: validated amounts, bands that never overlap, immutability once published, one default per tenant. */
let payments: PaymentsHarness;

beforeAll(async () => {
  payments = await startPaymentsHarness();
});

afterAll(async () => {
  await payments?.close();
});

async function draft(given?: string): Promise<{ tenantId: string; scheduleId: string }> {
  const tenantId = given ?? (await payments.newTenant());
  const created = await tenant(payments, tenantId).create({ name: 'Draft' });
  expect(created.status).toBe(201);
  return { tenantId, scheduleId: created.body.id };
}

async function ruleCount(scheduleId: string): Promise<number> {
  const rows = await payments.db('fee_rules').where({ schedule_id: scheduleId }).count<{ count: string }[]>('* as count');
  return Number(rows[0]?.count ?? 0);
}

const kes = (band: Record<string, unknown>) => ({ transactionType: 'transfer', currencyCode: 'KES', flatFee: 1, ...band });

describe('overlapping bands', () => {
  it.each([
    ['the same closed band', { minAmount: 100, maxAmount: 200 }, { minAmount: 100, maxAmount: 200 }],
    ['bands touching at an inclusive bound', { minAmount: 100, maxAmount: 200 }, { minAmount: 200, maxAmount: 300 }],
    ['a band inside another', { minAmount: 100, maxAmount: 1000 }, { minAmount: 400, maxAmount: 500 }],
    ['an open top reaching a band far above', { minAmount: 100 }, { minAmount: 1_000_000, maxAmount: 2_000_000 }],
    ['an open bottom reaching a band far below', { maxAmount: 100 }, { minAmount: '0.01', maxAmount: '0.02' }],
    ['a fully open band against any band', {}, { minAmount: 5, maxAmount: 5 }],
    ['any band against a fully open one', { minAmount: 5, maxAmount: 5 }, {}],
    ['an open bottom against an open top that starts below its end', { maxAmount: 100 }, { minAmount: 100 }],
  ])('refuses %s with 409 OVERLAPPING_FEE_RULE', async (_name, first, second) => {
    const { tenantId, scheduleId } = await draft();
    const kept = await tenant(payments, tenantId).addRule(scheduleId, kes(first));
    expect(kept.status).toBe(201);
    const refused = await tenant(payments, tenantId).addRule(scheduleId, kes(second));
    expect([refused.status, refused.body.error.code]).toEqual([409, 'OVERLAPPING_FEE_RULE']);
    expect(refused.body.error.details).toMatchObject({ ruleId: kept.body.id });
    expect(await ruleCount(scheduleId)).toBe(1);
  });

  it('accepts bands one minor unit apart, and any band for another type or currency', async () => {
    const { tenantId, scheduleId } = await draft();
    const own = tenant(payments, tenantId);
    const added = [
      await own.addRule(scheduleId, kes({ maxAmount: 100 })),
      await own.addRule(scheduleId, kes({ minAmount: '100.01', maxAmount: 200 })),
      await own.addRule(scheduleId, kes({ minAmount: '200.01' })),
      await own.addRule(scheduleId, { ...kes({}), transactionType: 'payout' }),
      await own.addRule(scheduleId, { ...kes({}), currencyCode: 'UGX' }),
      await own.addRule(scheduleId, { transactionType: 'deposit', currencyCode: 'UGX', maxAmount: 100, flatFee: 1 }),
      await own.addRule(scheduleId, { transactionType: 'deposit', currencyCode: 'UGX', minAmount: 101, flatFee: 1 }),
    ];
    expect(added.map((result) => result.status)).toEqual([201, 201, 201, 201, 201, 201, 201]);
  });

  it('lets exactly one of many concurrent overlapping additions in, and all of many disjoint ones', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { tenantId, scheduleId } = await draft();
      const own = tenant(payments, tenantId);
      // Every band holds the amount 500, so any two overlap.
      const racing = await Promise.all(
        Array.from({ length: 8 }, (_unused, index) =>
          own.addRule(scheduleId, kes({ minAmount: 100 + index, maxAmount: 500 + index * 10 })),
        ),
      );
      expect(racing.map((result) => result.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const loser of racing.filter((result) => result.status === 409)) expect(loser.body.error.code).toBe('OVERLAPPING_FEE_RULE');
      expect(await ruleCount(scheduleId)).toBe(1);
    }
    const { tenantId, scheduleId } = await draft();
    const disjoint = await Promise.all(
      Array.from({ length: 8 }, (_unused, index) =>
        tenant(payments, tenantId).addRule(scheduleId, kes({ minAmount: index * 100 + 1, maxAmount: index * 100 + 100 })),
      ),
    );
    expect(disjoint.map((result) => result.status)).toEqual(Array(8).fill(201));
    expect(await ruleCount(scheduleId)).toBe(8);
  });
});

describe('rule amounts', () => {
  it.each([
    ['flatFee finer than KES', kes({ flatFee: '1.001' }), 'INVALID_AMOUNT'],
    ['minAmount finer than UGX', { transactionType: 'deposit', currencyCode: 'UGX', minAmount: '10.5' }, 'INVALID_AMOUNT'],
    ['maxFee finer than KWD', { transactionType: 'deposit', currencyCode: 'KWD', maxFee: '0.0001' }, 'INVALID_AMOUNT'],
    ['a negative flatFee', kes({ flatFee: -1 }), 'INVALID_AMOUNT'],
    ['an amount in exponent notation', kes({ maxAmount: '1e6' }), 'INVALID_AMOUNT'],
    ['minAmount above maxAmount', kes({ minAmount: 200, maxAmount: 100 }), 'VALIDATION_ERROR'],
    ['minFee above maxFee', kes({ minFee: 20, maxFee: 10 }), 'VALIDATION_ERROR'],
    ['a percentage over 100', kes({ percentageFee: '100.01' }), 'VALIDATION_ERROR'],
    ['a percentage with 5 fraction digits', kes({ percentageFee: '0.00001' }), 'VALIDATION_ERROR'],
    ['an unknown transaction type', kes({ transactionType: 'refund' }), 'VALIDATION_ERROR'],
    ['an unsupported currency', kes({ currencyCode: 'ABC' }), 'VALIDATION_ERROR'],
    ['a boolean amount', kes({ flatFee: true }), 'VALIDATION_ERROR'],
  ])('refuses %s with 400', async (_name, body, code) => {
    const { tenantId, scheduleId } = await draft();
    const refused = await tenant(payments, tenantId).addRule(scheduleId, body);
    expect([refused.status, refused.body.error.code]).toEqual([400, code]);
    expect(await ruleCount(scheduleId)).toBe(0);
  });

  it('reads number tokens losslessly and writes amounts at the currency scale', async () => {
    const { tenantId, scheduleId } = await draft();
    const added = await tenant(payments, tenantId).addRuleRaw(
      scheduleId,
      '{"transactionType":"withdrawal","currencyCode":"KWD","minAmount":0,"maxAmount":123456789012.125,"flatFee":0.5,"percentageFee":0.0125,"minFee":0.100}',
    );
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      minAmount: '0.000',
      maxAmount: '123456789012.125',
      flatFee: '0.500',
      percentageFee: '0.0125',
      minFee: '0.100',
      maxFee: null,
    });
    const tooFine = await tenant(payments, tenantId).addRuleRaw(
      scheduleId,
      '{"transactionType":"transfer","currencyCode":"KES","flatFee":0.30000000000000004}',
    );
    expect(tooFine.body.error.code).toBe('INVALID_AMOUNT');
  });
});

describe('published schedules', () => {
  it('take no more rules and cannot be published again', async () => {
    const { tenantId, scheduleId } = await draft();
    const own = tenant(payments, tenantId);
    await own.addRule(scheduleId, kes({ maxAmount: 100 }));
    expect((await own.publish(scheduleId)).status).toBe(200);
    const added = await own.addRule(scheduleId, kes({ minAmount: 1000 }));
    expect([added.status, added.body.error.code]).toEqual([409, 'FEE_SCHEDULE_PUBLISHED']);
    const again = await own.publish(scheduleId, { makeDefault: true });
    expect([again.status, again.body.error.code]).toEqual([409, 'FEE_SCHEDULE_PUBLISHED']);
    expect((await own.get(scheduleId)).body).toMatchObject({
      status: 'published',
      isDefault: false,
      rules: [expect.objectContaining({ maxAmount: '100.00' })],
    });
    const onPlatform = await platform(payments).addRule(tenantId, scheduleId, kes({ minAmount: 1000 }));
    expect(onPlatform.body.error.code).toBe('FEE_SCHEDULE_PUBLISHED');
    expect(await ruleCount(scheduleId)).toBe(1);
  });

  it('never gain a rule racing their publication: what was published is what stays', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { tenantId, scheduleId } = await draft();
      const own = tenant(payments, tenantId);
      const [published, ...added] = await Promise.all([
        own.publish(scheduleId, { makeDefault: true }),
        ...Array.from({ length: 4 }, (_unused, index) =>
          own.addRule(scheduleId, kes({ minAmount: index * 10 + 1, maxAmount: index * 10 + 10 })),
        ),
      ]);
      expect(published?.status).toBe(200);
      for (const result of added) expect([201, 409]).toContain(result.status);
      const accepted = added
        .filter((result) => result.status === 201)
        .map((result) => result.body.id)
        .sort();
      expect(published?.body.rules.map((rule: { id: string }) => rule.id).sort()).toEqual(accepted);
      expect(await ruleCount(scheduleId)).toBe(accepted.length);
    }
  });
});

describe('the default schedule', () => {
  async function defaults(tenantId: string): Promise<string[]> {
    return (await payments.db('fee_schedules').where({ tenant_id: tenantId, is_default: true }).select('id')).map(
      (row: { id: string }) => row.id,
    );
  }

  it('moves to the schedule last published with makeDefault, and the quote follows it', async () => {
    const tenantId = await payments.newTenant();
    const first = await publishedDefault(payments, tenantId, [kes({ flatFee: 1 })]);
    expect((await tenant(payments, tenantId).quote('transfer', 'KES', '10')).body).toMatchObject({
      fee: '1.00',
      scheduleId: first.scheduleId,
    });
    const second = await publishedDefault(payments, tenantId, [kes({ flatFee: 2 })]);
    expect(await defaults(tenantId)).toEqual([second.scheduleId]);
    expect((await tenant(payments, tenantId).get(first.scheduleId)).body.isDefault).toBe(false);
    expect((await tenant(payments, tenantId).quote('transfer', 'KES', '10')).body).toMatchObject({
      fee: '2.00',
      scheduleId: second.scheduleId,
      ruleId: second.ruleIds[0],
    });
  });

  it('is exactly one schedule after concurrent publishes that each make theirs the default', async () => {
    for (let round = 0; round < 3; round += 1) {
      const tenantId = await payments.newTenant();
      await publishedDefault(payments, tenantId, []);
      const drafts = await Promise.all(
        Array.from(
          { length: 6 },
          async (_unused, index) => (await tenant(payments, tenantId).create({ name: `Race ${index}` })).body.id as string,
        ),
      );
      const published = await Promise.all(
        drafts.map((scheduleId, index) =>
          index % 2 === 0
            ? tenant(payments, tenantId).publish(scheduleId, { makeDefault: true })
            : platform(payments).publish(tenantId, scheduleId, { makeDefault: true }),
        ),
      );
      expect(published.map((result) => result.status)).toEqual(Array(6).fill(200));
      const now = await defaults(tenantId);
      expect(now).toHaveLength(1);
      expect(drafts).toContain(now[0]);
      const listed = (await tenant(payments, tenantId).list()).body.data.filter((schedule: { isDefault: boolean }) => schedule.isDefault);
      expect(listed.map((schedule: { id: string }) => schedule.id)).toEqual(now);
    }
  });
});

describe('removing a rule', () => {
  it('takes it out of a draft, answering the rules left, and frees its band', async () => {
    const { tenantId, scheduleId } = await draft();
    const own = tenant(payments, tenantId);
    const low = await own.addRule(scheduleId, kes({ maxAmount: 100 }));
    const high = await own.addRule(scheduleId, kes({ minAmount: '100.01' }));
    const removed = await own.removeRule(scheduleId, high.body.id);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: scheduleId, status: 'draft', rules: [expect.objectContaining({ id: low.body.id })] });
    expect(removed.body.rules).toHaveLength(1);
    expect((await own.addRule(scheduleId, kes({ minAmount: 150 }))).status).toBe(201);
    const twice = await own.removeRule(scheduleId, high.body.id);
    expect([twice.status, twice.body.error.code]).toEqual([404, 'FEE_RULE_NOT_FOUND']);
    expect(await ruleCount(scheduleId)).toBe(2);
  });

  it('refuses a published schedule with 409 FEE_SCHEDULE_PUBLISHED, and removes nothing', async () => {
    const { tenantId, scheduleId } = await draft();
    const own = tenant(payments, tenantId);
    const rule = await own.addRule(scheduleId, kes({}));
    expect((await own.publish(scheduleId)).status).toBe(200);
    const refused = await own.removeRule(scheduleId, rule.body.id);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'FEE_SCHEDULE_PUBLISHED']);
    expect((await own.get(scheduleId)).body.rules.map((each: { id: string }) => each.id)).toEqual([rule.body.id]);
  });

  it("is 404 for another tenant's schedule, an unknown schedule, and a rule of another schedule", async () => {
    const { tenantId, scheduleId } = await draft();
    const rule = await tenant(payments, tenantId).addRule(scheduleId, kes({}));
    const stranger = tenant(payments, await payments.newTenant());
    const foreign = await stranger.removeRule(scheduleId, rule.body.id);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'FEE_SCHEDULE_NOT_FOUND']);
    const unknown = await tenant(payments, tenantId).removeRule('fs_00000000000000000000000000', rule.body.id);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'FEE_SCHEDULE_NOT_FOUND']);
    const other = await draft(tenantId);
    const elsewhere = await tenant(payments, tenantId).removeRule(other.scheduleId, rule.body.id);
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, 'FEE_RULE_NOT_FOUND']);
    expect(await ruleCount(scheduleId)).toBe(1);
  });

  it('never takes a rule out of a schedule racing its publication', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { tenantId, scheduleId } = await draft();
      const own = tenant(payments, tenantId);
      const rule = await own.addRule(scheduleId, kes({}));
      const [published, removed] = await Promise.all([own.publish(scheduleId), own.removeRule(scheduleId, rule.body.id)]);
      expect(published?.status).toBe(200);
      const kept = removed?.status === 409 ? [rule.body.id] : [];
      expect([200, 409]).toContain(removed?.status);
      expect(published?.body.rules.map((each: { id: string }) => each.id)).toEqual(kept);
      expect(await ruleCount(scheduleId)).toBe(kept.length);
    }
  });
});

describe('a draft copying the rules of another schedule', () => {
  it('starts with copies of its rules under new ids, the source untouched', async () => {
    const tenantId = await payments.newTenant();
    const source = await publishedDefault(payments, tenantId, [
      kes({ maxAmount: 100 }),
      kes({ minAmount: '100.01', percentageFee: '1.25' }),
    ]);
    const copy = await tenant(payments, tenantId).create({ name: 'Next prices', copyRulesFrom: source.scheduleId });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ status: 'draft', rules: [{ maxAmount: '100.00' }, { minAmount: '100.01', percentageFee: '1.25' }] });
    for (const rule of copy.body.rules) {
      expect(rule.scheduleId).toBe(copy.body.id);
      expect(source.ruleIds).not.toContain(rule.id);
    }
    expect((await tenant(payments, tenantId).get(copy.body.id)).body.rules).toEqual(copy.body.rules);
    expect(await ruleCount(source.scheduleId)).toBe(2);
  });

  it("is 404 FEE_SCHEDULE_NOT_FOUND for another tenant's schedule, and creates nothing", async () => {
    const theirs = await publishedDefault(payments, await payments.newTenant(), [kes({})]);
    const tenantId = await payments.newTenant();
    const refused = await tenant(payments, tenantId).create({ name: 'Stolen', copyRulesFrom: theirs.scheduleId });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'FEE_SCHEDULE_NOT_FOUND']);
    expect(await payments.db('fee_schedules').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count')).toEqual([
      { count: '0' },
    ]);
  });
});
