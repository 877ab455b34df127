import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import { bandsOverlap, commissionOf, feeOf, type FeeRuleForMatch, type FeeRuleTerms, quoteWith } from '../src/features/fees/fee-calculator';
import { type PaymentsHarness, startPaymentsHarness, tenantToken } from './support';

/**
 * The fee formula of docs/decisions/fees.md against a reference written here, apart from the
 * engine: fee = clamp(flatFee + amount x percentageFee / 100, minFee, maxFee), rounded half-up
 * to the currency's scale; commission = fee x bps / 10000, rounded half-up.
 */

/** A BigNumber with room for every digit the reference produces, so its division is exact. */
const Exact = BigNumber.clone({ DECIMAL_PLACES: 80 });

/** Half-up rounding written out: floor, then one more unit when what was cut is at least a half. */
function referenceRound(value: BigNumber.Value, scale: number): BigNumber {
  const unit = new Exact(10).pow(scale);
  const scaled = new Exact(value).times(unit);
  const whole = scaled.integerValue(BigNumber.ROUND_FLOOR);
  const rounded = scaled.minus(whole).gte('0.5') ? whole.plus(1) : whole;
  return rounded.div(unit);
}

interface PlainRule {
  minAmount: string | null;
  maxAmount: string | null;
  flatFee: string;
  percentageFee: string;
  minFee: string | null;
  maxFee: string | null;
}

function referenceFee(rule: PlainRule, amount: string, scale: number): BigNumber {
  let fee = new Exact(rule.flatFee).plus(new Exact(amount).times(rule.percentageFee).div(100));
  if (rule.minFee !== null && fee.lt(rule.minFee)) fee = new Exact(rule.minFee);
  if (rule.maxFee !== null && fee.gt(rule.maxFee)) fee = new Exact(rule.maxFee);
  return referenceRound(fee, scale);
}

function referenceMatches(rule: PlainRule, amount: string): boolean {
  return (
    (rule.minAmount === null || new Exact(rule.minAmount).lte(amount)) && (rule.maxAmount === null || new Exact(amount).lte(rule.maxAmount))
  );
}

const big = (text: string | null): BigNumber | null => (text === null ? null : new BigNumber(text));

function termsOf(rule: PlainRule): FeeRuleTerms {
  return {
    minAmount: big(rule.minAmount),
    maxAmount: big(rule.maxAmount),
    flatFee: new BigNumber(rule.flatFee),
    percentageFee: new BigNumber(rule.percentageFee),
    minFee: big(rule.minFee),
    maxFee: big(rule.maxFee),
  };
}

function ruleFor(rule: PlainRule, currencyCode: string, id = 'fr_1'): FeeRuleForMatch {
  return { id, transactionType: 'transfer', currencyCode, ...termsOf(rule) };
}

const rule = (overrides: Partial<PlainRule>): PlainRule => ({
  minAmount: null,
  maxAmount: null,
  flatFee: '0',
  percentageFee: '0',
  minFee: null,
  maxFee: null,
  ...overrides,
});

const CURRENCIES = [
  { code: 'UGX', scale: 0 },
  { code: 'KES', scale: 2 },
  { code: 'KWD', scale: 3 },
] as const;

/** An amount of `units` minor units of a currency, as its decimal text. */
const decimal = (units: bigint, scale: number): string => new BigNumber(units.toString()).shiftedBy(-scale).toFixed(scale);

const minorUnits = (max: bigint) => fc.oneof(fc.bigInt({ min: 0n, max: 1_000n }), fc.bigInt({ min: 0n, max }));

/** A rule and an amount in one currency; the band sometimes holds the amount, sometimes ends at it, sometimes misses it. */
const feeCase = fc.constantFrom(...CURRENCIES).chain(({ code, scale }) =>
  fc
    .record({
      amount: fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 13n })),
      flat: fc.oneof(fc.constant(0n), minorUnits(10n ** 7n)),
      // Hundredths of a basis point of a percent: 0 to 100 % with 4 fraction digits.
      // Round percents often land exactly on a half of the last digit: ties must be rounded up.
      percent: fc.oneof(
        fc.constant(0),
        fc.constantFrom(2_500, 5_000, 10_000, 25_000, 100_000, 500_000),
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
      ),
      fees: fc.tuple(minorUnits(10n ** 9n), minorUnits(10n ** 9n), fc.boolean(), fc.boolean()),
      lower: fc.oneof(fc.constant(null), fc.constant(0n), fc.bigInt({ min: -1_000n, max: 1_000n })),
      upper: fc.oneof(fc.constant(null), fc.constant(0n), fc.bigInt({ min: -1_000n, max: 1_000n })),
    })
    .map(({ amount, flat, percent, fees: [a, b, withMin, withMax], lower, upper }) => {
      const low = a < b ? a : b;
      const high = a < b ? b : a;
      const bound = (offset: bigint | null) => (offset === null || amount + offset < 0n ? null : decimal(amount + offset, scale));
      return {
        code,
        scale,
        amount: decimal(amount, scale),
        rule: rule({
          minAmount: bound(lower),
          maxAmount: bound(upper === null ? null : upper),
          flatFee: decimal(flat, scale),
          percentageFee: new BigNumber(percent).shiftedBy(-4).toFixed(),
          minFee: withMin ? decimal(low, scale) : null,
          maxFee: withMax ? decimal(high, scale) : null,
        }),
      };
    }),
);

describe('the fee formula', () => {
  it.each([
    ['a flat fee', 'KES', rule({ flatFee: '25' }), '1000', '25.00'],
    ['a percent', 'KES', rule({ percentageFee: '1.5' }), '1000', '15.00'],
    ['flat plus percent', 'KES', rule({ flatFee: '10', percentageFee: '1' }), '250.50', '12.51'],
    ['a percent below minFee, raised to it', 'KES', rule({ percentageFee: '1', minFee: '50' }), '1000', '50.00'],
    ['a percent above maxFee, capped at it', 'KES', rule({ percentageFee: '2', maxFee: '100' }), '10000', '100.00'],
    ['a percent between the bounds, kept', 'KES', rule({ percentageFee: '2', minFee: '10', maxFee: '100' }), '1000', '20.00'],
    ['a half cent, rounded up', 'KES', rule({ percentageFee: '1' }), '1.50', '0.02'],
    ['just under a half cent, rounded down', 'KES', rule({ percentageFee: '1' }), '1.49', '0.01'],
    ['a half shilling in UGX, rounded up', 'UGX', rule({ percentageFee: '1' }), '250', '3'],
    ['under a half shilling in UGX, rounded down', 'UGX', rule({ percentageFee: '1' }), '249', '2'],
    ['a half fils in KWD, rounded up', 'KWD', rule({ percentageFee: '0.5' }), '0.101', '0.001'],
    ['a zero rule', 'KES', rule({}), '1000', '0.00'],
    ['minFee on a zero rule', 'KES', rule({ minFee: '5' }), '1000', '5.00'],
    ['a fraction of a percent on a large amount', 'UGX', rule({ percentageFee: '0.0125' }), '123456789', '15432'],
  ])('%s', (_name, currency, terms, amount, fee) => {
    const scale = CURRENCIES.find((entry) => entry.code === currency)?.scale ?? 2;
    expect(feeOf(termsOf(terms), new BigNumber(amount), currency).toFixed(scale)).toBe(fee);
  });

  it('matches bands inclusively at both ends, open bounds reaching to infinity', () => {
    const rules = [
      ruleFor(rule({ maxAmount: '100', flatFee: '1' }), 'KES', 'fr_low'),
      ruleFor(rule({ minAmount: '100.01', maxAmount: '1000', flatFee: '2' }), 'KES', 'fr_mid'),
      ruleFor(rule({ minAmount: '1000.01', flatFee: '3' }), 'KES', 'fr_high'),
    ];
    const schedule = { id: 'fs_1', platformCommissionBps: 0 };
    const ruleAt = (amount: string) => quoteWith(schedule, rules, 'transfer', 'KES', new BigNumber(amount)).ruleId;
    expect(['0.01', '100', '100.01', '1000', '1000.01', '999999999'].map(ruleAt)).toEqual([
      'fr_low',
      'fr_low',
      'fr_mid',
      'fr_mid',
      'fr_high',
      'fr_high',
    ]);
  });

  it('charges 0 with null ids when no rule matches: another type, another currency, outside the band, no schedule', () => {
    const schedule = { id: 'fs_1', platformCommissionBps: 2500 };
    const rules = [ruleFor(rule({ minAmount: '10', maxAmount: '20', flatFee: '1' }), 'KES')];
    const none = { scheduleId: null, ruleId: null, platformCommissionBps: 0 };
    expect(quoteWith(schedule, rules, 'payout', 'KES', new BigNumber('15'))).toMatchObject(none);
    expect(quoteWith(schedule, rules, 'transfer', 'UGX', new BigNumber('15'))).toMatchObject(none);
    expect(quoteWith(schedule, rules, 'transfer', 'KES', new BigNumber('20.01'))).toMatchObject(none);
    expect(quoteWith(null, rules, 'transfer', 'KES', new BigNumber('15'))).toMatchObject(none);
    const missed = quoteWith(schedule, rules, 'transfer', 'KES', new BigNumber('9.99'));
    expect([missed.fee.toFixed(), missed.commission.toFixed()]).toEqual(['0', '0']);
    const hit = quoteWith(schedule, rules, 'transfer', 'KES', new BigNumber('10'));
    expect({ fee: hit.fee.toFixed(2), commission: hit.commission.toFixed(2), ruleId: hit.ruleId, scheduleId: hit.scheduleId }).toEqual({
      fee: '1.00',
      commission: '0.25',
      ruleId: 'fr_1',
      scheduleId: 'fs_1',
    });
  });

  it('agrees with the reference for random amounts and rules in UGX, KES and KWD', () => {
    fc.assert(
      fc.property(feeCase, ({ code, scale, amount, rule: plain }) => {
        const fee = feeOf(termsOf(plain), new BigNumber(amount), code);
        expect(fee.decimalPlaces()).toBeLessThanOrEqual(scale);
        expect(fee.toFixed(scale)).toBe(referenceFee(plain, amount, scale).toFixed(scale));
        if (plain.minFee !== null) expect(fee.gte(plain.minFee)).toBe(true);
        if (plain.maxFee !== null) expect(fee.lte(plain.maxFee)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('matches a rule exactly when the amount is inside its band, and charges the reference fee then', () => {
    fc.assert(
      fc.property(feeCase, fc.integer({ min: 0, max: 10_000 }), ({ code, scale, amount, rule: plain }, bps) => {
        fc.pre(plain.minAmount === null || plain.maxAmount === null || new BigNumber(plain.minAmount).lte(plain.maxAmount));
        const result = quoteWith(
          { id: 'fs_p', platformCommissionBps: bps },
          [ruleFor(plain, code, 'fr_p')],
          'transfer',
          code,
          new BigNumber(amount),
        );
        const matched = referenceMatches(plain, amount);
        expect(result.ruleId).toBe(matched ? 'fr_p' : null);
        expect(result.scheduleId).toBe(matched ? 'fs_p' : null);
        const fee = matched ? referenceFee(plain, amount, scale) : new BigNumber(0);
        expect(result.fee.toFixed(scale)).toBe(fee.toFixed(scale));
        expect(result.commission.toFixed(scale)).toBe(
          matched ? referenceRound(fee.times(bps).div(10_000), scale).toFixed(scale) : new BigNumber(0).toFixed(scale),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the platform commission', () => {
  it.each([
    ['KES', '10.00', 2500, '2.50'],
    ['KES', '0.01', 5000, '0.01'],
    ['KES', '0.01', 4999, '0.00'],
    ['UGX', '3', 5000, '2'],
    ['UGX', '5', 1000, '1'],
    ['KWD', '0.005', 1000, '0.001'],
    ['KWD', '0.004', 1000, '0.000'],
    ['KES', '99.99', 10_000, '99.99'],
    ['KES', '99.99', 0, '0.00'],
  ])('%s %s at %i bps is %s', (currency, fee, bps, commission) => {
    const scale = CURRENCIES.find((entry) => entry.code === currency)?.scale ?? 2;
    expect(commissionOf(new BigNumber(fee), bps, currency).toFixed(scale)).toBe(commission);
  });

  it('is fee x bps / 10000 rounded half-up, never more than the fee, for random fees and rates', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.oneof(fc.constantFrom(0, 1, 5000, 9999, 10_000), fc.integer({ min: 0, max: 10_000 })),
        ({ code, scale }, units, bps) => {
          const fee = new BigNumber(decimal(units, scale));
          const commission = commissionOf(fee, bps, code);
          expect(commission.toFixed(scale)).toBe(referenceRound(new Exact(fee).times(bps).div(10_000), scale).toFixed(scale));
          expect(commission.gte(0) && commission.lte(fee)).toBe(true);
          expect(commission.decimalPlaces()).toBeLessThanOrEqual(scale);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a rate outside 0-10000 or not an integer', () => {
    expect(() => commissionOf(new BigNumber(1), 10_001, 'KES')).toThrow();
    expect(() => commissionOf(new BigNumber(1), -1, 'KES')).toThrow();
    expect(() => commissionOf(new BigNumber(1), 1.5, 'KES')).toThrow();
  });
});

describe('band overlap', () => {
  const band = (minAmount: number | null, maxAmount: number | null) => ({
    minAmount: minAmount === null ? null : new BigNumber(minAmount),
    maxAmount: maxAmount === null ? null : new BigNumber(maxAmount),
  });

  it.each([
    ['touching at an inclusive bound', band(0, 100), band(100, 200), true],
    ['one cent apart', band(0, 100), band(100.01, 200), false],
    ['nested', band(0, 1000), band(10, 20), true],
    ['an open top against anything above', band(100, null), band(1_000_000, 2_000_000), true],
    ['an open bottom against anything below', band(null, 100), band(0, 0.01), true],
    ['both fully open', band(null, null), band(5, 5), true],
    ['an open top below an open bottom', band(200, null), band(null, 199.99), false],
    ['an open bottom above an open top', band(null, 100), band(100, null), true],
  ])('%s', (_name, a, b, expected) => {
    expect(bandsOverlap(a, b)).toBe(expected);
    expect(bandsOverlap(b, a)).toBe(expected);
  });

  it('is true exactly when some amount lies in both bands', () => {
    const bound = fc.option(fc.integer({ min: 0, max: 20 }), { nil: null });
    const validBand = fc.tuple(bound, bound).filter(([low, high]) => low === null || high === null || low <= high);
    fc.assert(
      fc.property(validBand, validBand, ([aLow, aHigh], [bLow, bHigh]) => {
        const inside = (point: number, low: number | null, high: number | null) =>
          (low === null || low <= point) && (high === null || point <= high);
        let shared = false;
        for (let point = -1; point <= 21; point += 1) if (inside(point, aLow, aHigh) && inside(point, bLow, bHigh)) shared = true;
        expect(bandsOverlap(band(aLow, aHigh), band(bLow, bHigh))).toBe(shared);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('quotes over HTTP from a real database', () => {
  let payments: PaymentsHarness;

  beforeAll(async () => {
    payments = await startPaymentsHarness();
  });

  afterAll(async () => {
    await payments?.close();
  });

  it('charge what the reference computes for random published rules in UGX, KES and KWD', async () => {
    await fc.assert(
      fc.asyncProperty(feeCase, fc.integer({ min: 0, max: 10_000 }), async ({ code, scale, amount, rule: plain }, bps) => {
        fc.pre(plain.minAmount === null || plain.maxAmount === null || new BigNumber(plain.minAmount).lte(plain.maxAmount));
        const tenantId = await payments.newTenant();
        const base = `/v1/system/organizations/${tenantId}/fee-schedules`;
        const created = await payments.request('POST', base, { body: { name: 'property', platformCommissionBps: bps } });
        expect(created.status).toBe(201);
        const nonNull = Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== null));
        const added = await payments.request('POST', `${base}/${created.body.id}/rules`, {
          body: { transactionType: 'deposit', currencyCode: code, ...nonNull },
        });
        expect(added.status).toBe(201);
        expect((await payments.request('POST', `${base}/${created.body.id}/publish`, { body: { makeDefault: true } })).status).toBe(200);

        const quoted = await payments.request('GET', `/v1/fees/quote?transactionType=deposit&currencyCode=${code}&amount=${amount}`, {
          token: tenantToken(tenantId, { scopes: ['fees:read'] }),
        });
        expect(quoted.status).toBe(200);
        const matched = referenceMatches(plain, amount);
        expect(quoted.body).toEqual({
          transactionType: 'deposit',
          currencyCode: code,
          amount,
          fee: (matched ? referenceFee(plain, amount, scale) : new BigNumber(0)).toFixed(scale),
          scheduleId: matched ? created.body.id : null,
          ruleId: matched ? added.body.id : null,
        });
      }),
      { numRuns: 40 },
    );
  });
});
