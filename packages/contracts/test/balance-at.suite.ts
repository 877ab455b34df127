import { balanceMomentSchema, buildOpenApiDocument, pathIdsOf, PLATFORM_ROUTES, WALLET_ROUTES } from '../src';

type Operation = {
  summary: string;
  security: unknown[];
  'x-required-scope'?: string;
  parameters: Array<{ name: string; in: string; required: boolean; schema: { description?: string } }>;
};

describe('balance as of a moment in the contracts', () => {
  const paths = buildOpenApiDocument({ version: 'test' }).paths as Record<string, Record<string, Operation>>;

  it('documents both routes with a required `at` that says how it is read', () => {
    const wallet = paths['/v1/wallets/{id}/balance']?.get;
    const account = paths['/v1/system/ledger/accounts/{accountId}/balance']?.get;
    expect(wallet?.['x-required-scope']).toBe('wallets:read');
    expect(account?.security).toEqual([{ systemKey: [] }]);
    for (const operation of [wallet, account]) {
      expect(operation?.summary).toMatch(/at or before `at`/);
      const at = operation?.parameters.find((parameter) => parameter.name === 'at');
      expect(at).toMatchObject({ in: 'query', required: true });
      expect(at?.schema.description).toMatch(/Inclusive/);
      expect(at?.schema.description).toMatch(/offset/);
    }
    // Other queries stay optional: a page's limit has its default.
    expect(paths['/v1/wallets/{id}/entries']?.get?.parameters.find((parameter) => parameter.name === 'limit')?.required).toBe(false);
  });

  it('knows the kind of every path id of the new routes (the gateway refuses to start otherwise)', () => {
    for (const route of [...WALLET_ROUTES, ...PLATFORM_ROUTES].filter((each) => each.path.endsWith('/balance'))) {
      expect(() => pathIdsOf(route.path)).not.toThrow();
    }
    expect(pathIdsOf('/v1/system/ledger/accounts/{accountId}/balance')[0]?.pattern.test('acc_01JB')).toBe(true);
  });

  it.each([
    ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00.000Z'],
    ['2026-11-25T13:00:00.5+03:00', '2026-11-25T10:00:00.500Z'],
    ['2026-11-25T04:30:00.123456789-05:30', '2026-11-25T10:00:00.123Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['9999-12-30T23:59:59.999Z', '9999-12-30T23:59:59.999Z'],
  ])('reads %s as %s', (text, normalized) => {
    expect(balanceMomentSchema.parse(text)).toBe(normalized);
  });

  it.each([
    '2026-11-25T10:00:00',
    '2026-11-25',
    'now',
    '2026-11-25T10:00:00+0300',
    '2026-02-30T00:00:00Z',
    '0000-06-01T00:00:00Z',
    '9999-12-30T23:00:00-05:00',
    '1970-01-01T00:30:00+01:00',
    '0001-01-01T00:00:00Z',
    '9999-12-31T00:00:00Z',
  ])('refuses %s', (text) => {
    expect(balanceMomentSchema.safeParse(text).success).toBe(false);
  });
});
