import { randomUUID } from 'node:crypto';
import { errorBodySchema, ROUTES, signRequest } from '@wallet/contracts';
import { LedgerCommandClient } from '@wallet/money-commands';
import { WalletClient } from '@wallet/sdk';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from './in-process-system';

/**
 * Input the contract refuses, sent through the real gateway to the real services: each answer
 * is the 4xx the contract names (never a 500 from PostgreSQL), and nothing was stored.
 */
let system: SecuritySystem;
let apiKey: string;
let hmac: { keyId: string; secret: string };
let walletId: string;
let memberEmail: string;
let tenantId: string;
/** A second secret key of the tenant, for the operator's rotation. */
let spareKey: { id: string; key: string };

interface Answer {
  status: number;
  body: { error?: { code: string; details?: { fields?: Array<{ path: string }> } } } & Record<string, unknown>;
}

interface Sent {
  method?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** The tenant's secret key (default), the system key on the admin listener, or headers alone. */
  auth?: 'key' | 'system' | 'none';
}

function credentials(auth: Sent['auth']): Record<string, string> {
  if (auth === 'system') return { 'x-system-key': SYSTEM_KEY };
  return auth === 'none' ? {} : { 'x-api-key': apiKey };
}

async function send(path: string, options: Sent = {}): Promise<Answer> {
  const response = await fetch(`${options.auth === 'system' ? system.adminUrl : system.publicUrl}${path}`, {
    method: options.method ?? 'GET',
    headers: {
      ...credentials(options.auth),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return send(path, { method: 'POST', body: JSON.stringify(body), headers: { 'idempotency-key': randomUUID(), ...headers } });
}

function expectRefusal(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
  expect(errorBodySchema.safeParse(answer.body).success).toBe(true);
}

async function transferCount(): Promise<number> {
  return ((await send('/v1/transfers?limit=200')).body.data as unknown[]).length;
}

beforeAll(async () => {
  system = await startSecuritySystem('security_input', {
    GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0',
  });
  const platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  const slug = `in-${randomUUID().slice(0, 8)}`;
  const tenant = await platform.system.tenants.create({
    name: slug,
    slug,
    config: { defaultCurrency: 'USD', allowedCurrencies: ['USD', 'UGX'], maxTransactionAmount: '1000000' },
  });
  tenantId = tenant.id;
  const spare = await platform.apiKeys.createForTenant(tenant.id, { name: 'spare', scopes: ['ledger:read'], environment: 'live' });
  spareKey = { id: spare.id, key: spare.key as string };
  apiKey = (await platform.apiKeys.createForTenant(tenant.id, { name: 'admin', scopes: ['tenant:manage'], environment: 'live' }))
    .key as string;
  const signing = await platform.apiKeys.createForTenant(tenant.id, {
    name: 'signed',
    authMode: 'hmac',
    scopes: ['ledger:read'],
    environment: 'live',
  });
  hmac = { keyId: signing.id, secret: signing.signingSecret as string };
  walletId = (await post('/v1/wallets', { ownerType: 'user', ownerId: 'input-owner', currencyCode: 'USD' })).body.id as string;
  memberEmail = `member-${randomUUID().slice(0, 8)}@example.com`;
  await post('/v1/team', { name: 'Member', email: memberEmail, password: 'a long enough password', orgRole: 'operator' });
});

afterAll(async () => {
  await system?.close();
});

describe('NUL characters and lone surrogates', () => {
  it.each([
    ['the login email', '/v1/auth/login', () => ({ email: `a\u0000${memberEmail}`, password: 'a long enough password' }), 'email'],
    ['a wallet owner id', '/v1/wallets', () => ({ ownerType: 'user', ownerId: 'x\u0000y', currencyCode: 'USD' }), 'ownerId'],
    [
      'a transfer description',
      '/v1/transfers',
      () => ({ fromWalletId: walletId, toWalletId: walletId, amount: '1.00', currencyCode: 'USD', description: 'pay\u0000' }),
      'description',
    ],
    ['a freeze reason', '/v1/wallets/{wallet}/freeze', () => ({ reason: 'fraud\u0000' }), 'reason'],
    [
      'a transfer description as a lone surrogate',
      '/v1/transfers',
      () => ({ fromWalletId: walletId, toWalletId: walletId, amount: '1.00', currencyCode: 'USD', description: 'pay \ud800' }),
      'description',
    ],
    [
      "a payout decision's actor as a lone surrogate",
      '/v1/payouts/pc_01M895NS379TNEWJ3K1WC5N7NQ/reject',
      () => ({ actorId: 'usr_01M895NR8S52BKD3\ud800K4RVEFE2G1', reason: 'r' }),
      'actorId',
    ],
    [
      'a nested key',
      '/v1/team',
      () => ({ name: 'N', email: 'n@example.com', password: 'a long enough password', orgRole: 'operator', extra: { 'k\u0000': 1 } }),
      'extra',
    ],
  ])('in %s is 400 VALIDATION_ERROR naming the field', async (_what, path, body, field) => {
    const answer = await post(path.replace('{wallet}', walletId), body());
    expectRefusal(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.error?.details?.fields?.[0]?.path).toBe(field);
  });

  it('in a path id is a plain 404, and an id of another type is too', async () => {
    expectRefusal(await send('/v1/wallets/wl_x%00y'), 404, 'NOT_FOUND');
    expectRefusal(await send(`/v1/wallets/${walletId.replace('wl_', 'tx_')}`), 404, 'NOT_FOUND');
    expectRefusal(await send('/v1/journal/je_%00'), 404, 'NOT_FOUND');
    for (const broken of ['%ZZ', '%', '%C0%80', '%ED%A0%80']) expectRefusal(await send(`/v1/transfers/${broken}`), 404, 'NOT_FOUND');
    expect((await send(`/v1/wallets/${walletId}`)).status).toBe(200);
  });

  it('in a query filter is 400 naming the filter; an id filter of another shape too', async () => {
    for (const query of [
      '/v1/transfers?walletId=x%00y',
      '/v1/transfers?walletId=not-a-wallet',
      '/v1/journal?walletId=wl_%00',
      '/v1/developer/request-logs?idempotencyKey=x%00y',
      '/v1/team/audit-events?actorId=a%00',
    ]) {
      const answer = await send(query);
      expectRefusal(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error?.details?.fields?.[0]?.path).toBe(query.slice(query.indexOf('?') + 1, query.indexOf('=')));
    }
  });
});

describe('amounts', () => {
  it.each([
    ['131,071 integer digits', `1${'0'.repeat(131_070)}`],
    ['131,073 integer digits', `1${'0'.repeat(131_072)}`],
    ['19 integer digits', '1000000000000000000'],
    ['trailing zeros past the scale', '10.000'],
  ])('a transfer of %s is 400 INVALID_AMOUNT and stores nothing', async (_what, amount) => {
    const before = await transferCount();
    const answer = await send('/v1/transfers', {
      method: 'POST',
      body: `{"fromWalletId":"${walletId}","toWalletId":"wl_other","amount":${amount},"currencyCode":"USD"}`,
      headers: { 'idempotency-key': randomUUID() },
    });
    expectRefusal(answer, 400, 'INVALID_AMOUNT');
    expect(await transferCount()).toBe(before);
  });

  it('refuses a zero-scale currency written with a fraction, and the largest amount passes the check', async () => {
    const ugx = (await post('/v1/wallets', { ownerType: 'user', ownerId: 'ugx-owner', currencyCode: 'UGX' })).body.id as string;
    expectRefusal(
      await post('/v1/transfers', { fromWalletId: ugx, toWalletId: 'wl_other', amount: '100.0', currencyCode: 'UGX' }),
      400,
      'INVALID_AMOUNT',
    );
    // 18 digits is an amount: refused further on, by what the wallets are, not by its form.
    expectRefusal(
      await post('/v1/transfers', { fromWalletId: ugx, toWalletId: 'wl_nowhere', amount: '999999999999999999', currencyCode: 'UGX' }),
      404,
      'WALLET_NOT_FOUND',
    );
  });

  it('bounds maxTransactionAmount by the same rule', async () => {
    const slug = `in-${randomUUID().slice(0, 8)}`;
    const answer = await send('/v1/tenants', {
      auth: 'system',
      method: 'POST',
      body: `{"name":"${slug}","slug":"${slug}","config":{"defaultCurrency":"USD","allowedCurrencies":["USD"],"maxTransactionAmount":1${'0'.repeat(131_072)}}}`,
    });
    expectRefusal(answer, 400, 'INVALID_AMOUNT');
    const organizations = (await send('/v1/system/organizations?limit=200', { auth: 'system' })).body.data as Array<{ slug: string }>;
    expect(organizations.some((each) => each.slug === slug)).toBe(false);
  });
});

describe('time ranges', () => {
  it('refuses an analytics range at the end of time with 400, not a database error', async () => {
    expectRefusal(await send('/v1/system/analytics?to=9999-12-31T23:59:59.999Z', { auth: 'system' }), 400, 'VALIDATION_ERROR');
    expectRefusal(await send('/v1/admin/analytics?from=9999-12-31'), 400, 'VALIDATION_ERROR');
    expect((await send('/v1/admin/analytics?from=9999-12-20&to=9999-12-30')).status).toBe(200);
  });

  it('refuses a range at the start of time with 400 on both views, where the default from fell before year 1', async () => {
    expectRefusal(await send('/v1/admin/analytics?to=0001-01-01T00:00:00Z'), 400, 'VALIDATION_ERROR');
    expectRefusal(await send('/v1/system/analytics?to=0001-01-01T00:00:00Z', { auth: 'system' }), 400, 'VALIDATION_ERROR');
    expectRefusal(await send('/v1/admin/analytics?from=1969-12-31'), 400, 'VALIDATION_ERROR');
    expect((await send('/v1/admin/analytics?to=1970-01-01')).status).toBe(200);
    expect((await send('/v1/system/analytics?to=1970-01-01T00:00:00Z', { auth: 'system' })).status).toBe(200);
  });

  it.each([
    '/v1/journal?from=0001-01-01T00:00:00.000Z',
    '/v1/journal?to=9999-12-31T00:00:00.000Z',
    '/v1/team/audit-events?from=1969-12-31T23:59:59.999Z',
    '/v1/developer/request-logs?to=0001-01-01T00:00:00.000Z',
  ])('refuses %s outside the date domain with 400', async (path) => {
    expectRefusal(await send(path), 400, 'VALIDATION_ERROR');
  });
});

describe('tenants the operator names', () => {
  it('creates nothing for a tenant that does not exist: 404 TENANT_NOT_FOUND', async () => {
    const ghost = 'tn_97DDD4E81B09909B591E90E9D5';
    const answer = await send(`/v1/system/organizations/${ghost}/fee-schedules`, {
      auth: 'system',
      method: 'POST',
      body: JSON.stringify({ name: 'ghost', isDefault: false, platformCommissionBps: 100 }),
      headers: { 'idempotency-key': randomUUID() },
    });
    expectRefusal(answer, 404, 'TENANT_NOT_FOUND');
  });
});

describe('cursors', () => {
  const forged = [
    { seq: '99999999999999999999999999' },
    { seq: '9223372036854775808' },
    { seq: '1\u0000' },
    { id: 'a\u0000b' },
    { createdAt: '2026-11-25T00:00:00.000Z', id: '\u0000' },
    { seq: 1 },
    // Well formed, but no list issued them.
    { seq: '1' },
    { createdAt: '2026-11-25T00:00:00.000Z', id: 'req_1' },
  ].map((position) => Buffer.from(JSON.stringify(position), 'utf8').toString('base64url'));
  forged.push('not a cursor', '%00');
  const lists = ROUTES.filter(
    (route) =>
      route.method === 'get' && route.query?.shape.cursor !== undefined && !route.path.includes('{') && !route.query.shape.referenceType,
  );

  it.each(lists.map((route) => [route.path, route] as const))(
    'on %s: any cursor the list did not issue is 400 INVALID_CURSOR',
    async (path, route) => {
      for (const cursor of forged) {
        const answer = await send(`${path}?cursor=${encodeURIComponent(cursor)}`, { auth: route.surface === 'system' ? 'system' : 'key' });
        expect({ path, cursor, code: answer.body.error?.code }).toEqual({ path, cursor, code: 'INVALID_CURSOR' });
      }
    },
  );

  it('also when the rest of the query already answers an empty page', async () => {
    expectRefusal(await send(`/v1/developer/api-keys?environment=test&cursor=${forged[0] as string}`), 400, 'INVALID_CURSOR');
  });

  it('on a wallet statement too', async () => {
    expectRefusal(await send(`/v1/wallets/${walletId}/entries?cursor=${forged[0] as string}`), 400, 'INVALID_CURSOR');
  });

  it('binds a cursor to the list, tenant and environment that issued it: every other list refuses it', async () => {
    for (const orgRole of ['observer', 'observer']) {
      await post('/v1/team', {
        name: 'Paged',
        email: `paged-${randomUUID().slice(0, 8)}@example.com`,
        password: 'a long enough password',
        orgRole,
      });
    }
    const cursor = (await send('/v1/team?limit=1')).body.nextCursor as string;
    expect(typeof cursor).toBe('string');
    expect((await send(`/v1/team?limit=1&cursor=${cursor}`)).status).toBe(200);
    for (const route of lists.filter((each) => each.path !== '/v1/team')) {
      const answer = await send(`${route.path}?cursor=${cursor}`, { auth: route.surface === 'system' ? 'system' : 'key' });
      expect(`${route.path}: ${answer.body.error?.code}`).toBe(`${route.path}: INVALID_CURSOR`);
    }
    const platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const otherSlug = `in-${randomUUID().slice(0, 8)}`;
    const other = await platform.system.tenants.create({
      name: otherSlug,
      slug: otherSlug,
      config: { defaultCurrency: 'USD', allowedCurrencies: ['USD'], maxTransactionAmount: '100' },
    });
    const strangers = [
      (await platform.apiKeys.createForTenant(other.id, { name: 'other tenant', scopes: ['tenant:manage'], environment: 'live' }))
        .key as string,
      (await platform.apiKeys.createForTenant(tenantId, { name: 'other environment', scopes: ['tenant:manage'], environment: 'test' }))
        .key as string,
    ];
    for (const key of strangers)
      expectRefusal(
        await send(`/v1/team?limit=1&cursor=${cursor}`, { auth: 'none', headers: { 'x-api-key': key } }),
        400,
        'INVALID_CURSOR',
      );
  });

  it("binds a statement's cursor to its wallet", async () => {
    const ledger = await LedgerCommandClient.connect(system.env.AMQP_URL as string, 'input-hardening-tests');
    try {
      for (const amount of ['1.00', '2.00']) {
        const posted = await ledger.request({
          type: 'ledger.post.v1',
          commandId: `input-${randomUUID()}`,
          tenantId,
          environment: 'live',
          kind: 'momo_deposit',
          reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
          lines: [
            { accountName: 'momo-float:mtn', direction: 'DR', amount, currencyCode: 'USD' },
            { accountName: 'wallet:input-owner', walletId, direction: 'CR', amount, currencyCode: 'USD' },
          ],
        });
        expect(posted.status).toBe('posted');
      }
    } finally {
      await ledger.close();
    }
    const cursor = (await send(`/v1/wallets/${walletId}/entries?limit=1`)).body.nextCursor as string;
    expect(typeof cursor).toBe('string');
    expect((await send(`/v1/wallets/${walletId}/entries?limit=1&cursor=${cursor}`)).status).toBe(200);
    const other = (await post('/v1/wallets', { ownerType: 'user', ownerId: `other-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' })).body
      .id as string;
    expectRefusal(await send(`/v1/wallets/${other}/entries?cursor=${cursor}`), 400, 'INVALID_CURSOR');
  });
});

describe('signed request nonces', () => {
  function signed(nonce: string): Record<string, string> {
    return signRequest({
      keyId: hmac.keyId,
      signingSecret: hmac.secret,
      timestamp: new Date().toISOString(),
      nonce,
      method: 'GET',
      pathWithQuery: '/v1/journal',
      body: '',
    });
  }

  it.each([
    ['one character', 'a'],
    ['8 hex digits', 'deadbeef'],
    ['21 characters', 'a'.repeat(21)],
    ['10,000 characters', 'n'.repeat(10_000)],
    ['a space', `${'a'.repeat(30)} b`],
    ['22 identical characters', 'a'.repeat(22)],
    ['two characters alternating', 'ab'.repeat(16)],
    ['the alphabet in order', 'abcdefghijklmnopqrstuvwxyz'],
    ['a UUID of zeros', '00000000-0000-0000-0000-000000000000'],
  ])('refuses a nonce of %s with 401 INVALID_REQUEST_NONCE', async (_what, nonce) => {
    expectRefusal(await send('/v1/journal', { auth: 'none', headers: signed(nonce) }), 401, 'INVALID_REQUEST_NONCE');
  });

  it('takes a UUID and a 22-character base64url nonce', async () => {
    expect((await send('/v1/journal', { auth: 'none', headers: signed(randomUUID()) })).status).toBe(200);
    expect(
      (await send('/v1/journal', { auth: 'none', headers: signed(Buffer.from(randomUUID()).toString('base64url').slice(0, 22)) })).status,
    ).toBe(200);
  });
});

describe('charsets', () => {
  it.each([
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/json;charset="ISO-8859-1"',
    'application/json; charset=utf-8; charset=utf-16',
  ])('refuses %s with 415 and creates nothing', async (contentType) => {
    const ownerId = `charset-${randomUUID().slice(0, 8)}`;
    const answer = await send('/v1/wallets', {
      method: 'POST',
      body: JSON.stringify({ ownerType: 'user', ownerId, currencyCode: 'USD' }),
      headers: { 'content-type': contentType, 'idempotency-key': randomUUID() },
    });
    expectRefusal(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(((await send(`/v1/wallets?ownerId=${ownerId}`)).body.data as unknown[]).length).toBe(0);
  });

  it('takes UTF-8 in any case, or no charset', async () => {
    for (const contentType of ['application/json; charset=UTF-8', 'application/json; charset=utf-8', 'application/json']) {
      const answer = await send('/v1/wallets', {
        method: 'POST',
        body: JSON.stringify({ ownerType: 'user', ownerId: `utf8-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' }),
        headers: { 'content-type': contentType, 'idempotency-key': randomUUID() },
      });
      expect(answer.status).toBe(201);
    }
  });
});

describe('optional bodies', () => {
  function signedRead(): Record<string, string> {
    return signRequest({
      keyId: hmac.keyId,
      signingSecret: hmac.secret,
      timestamp: new Date().toISOString(),
      nonce: randomUUID(),
      method: 'GET',
      pathWithQuery: '/v1/journal',
      body: '',
    });
  }

  /** The five routes whose body may be left out, each with a way to see that it did not act. */
  async function optionalBodyRoutes(): Promise<Array<{ path: string; auth: 'key' | 'system'; acted: () => Promise<boolean> }>> {
    const provider = (await post('/v1/admin/momo-providers', { providerCode: `p${randomUUID().slice(0, 6)}`, name: 'P' })).body as {
      id: string;
      secretCreatedAt: string;
    };
    const tenantDraft = (await post('/v1/admin/fee-schedules', { name: `draft ${randomUUID().slice(0, 6)}` })).body.id as string;
    const systemDraft = (
      await send(`/v1/system/organizations/${tenantId}/fee-schedules`, {
        auth: 'system',
        method: 'POST',
        body: JSON.stringify({ name: `sys ${randomUUID().slice(0, 6)}`, isDefault: false, platformCommissionBps: 100 }),
      })
    ).body.id as string;
    const published = async (path: string, auth: 'key' | 'system') => (await send(path, { auth })).body.status === 'published';
    return [
      // A rotation with the default expiresInSeconds (0) ends the old secret at once.
      {
        path: `/v1/developer/api-keys/${hmac.keyId}/rotate`,
        auth: 'key',
        acted: async () => (await send('/v1/journal', { auth: 'none', headers: signedRead() })).status !== 200,
      },
      {
        path: `/v1/tenants/${tenantId}/api-keys/${spareKey.id}/rotate`,
        auth: 'system',
        acted: async () => (await send('/v1/journal', { auth: 'none', headers: { 'x-api-key': spareKey.key } })).status !== 200,
      },
      {
        path: `/v1/admin/momo-providers/${provider.id}/rotate-secret`,
        auth: 'key',
        acted: async () => (await send(`/v1/admin/momo-providers/${provider.id}`)).body.secretCreatedAt !== provider.secretCreatedAt,
      },
      {
        path: `/v1/admin/fee-schedules/${tenantDraft}/publish`,
        auth: 'key',
        acted: () => published(`/v1/admin/fee-schedules/${tenantDraft}`, 'key'),
      },
      {
        path: `/v1/system/organizations/${tenantId}/fee-schedules/${systemDraft}/publish`,
        auth: 'system',
        acted: () => published(`/v1/system/organizations/${tenantId}/fee-schedules/${systemDraft}`, 'system'),
      },
    ];
  }

  it.each(['123', '"x"', '[]', 'null', 'true'])(
    'a body of %s where a route may take none is 400 on all five, and none of them acts',
    async (body) => {
      const routes = await optionalBodyRoutes();
      for (const route of routes) {
        const answer = await send(route.path, { auth: route.auth, method: 'POST', body, headers: { 'idempotency-key': randomUUID() } });
        expect(`${route.path}: ${answer.status} ${answer.body.error?.code}`).toBe(`${route.path}: 400 VALIDATION_ERROR`);
      }
      for (const route of routes) expect(`${route.path}: ${await route.acted()}`).toBe(`${route.path}: false`);
    },
  );
});

describe('text a client names things with', () => {
  it.each([
    ['invalid UTF-8', Buffer.from([0xff, 0xfe])],
    ['a truncated sequence', Buffer.from([0xe2, 0x82])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
  ])('refuses %s in a body with 400 and stores nothing, where U+FFFD was stored before', async (_what, bytes) => {
    const ownerId = `utf8-${randomUUID().slice(0, 8)}`;
    const body = Buffer.concat([
      Buffer.from(`{"name":"Bad `),
      bytes,
      Buffer.from(`","email":"${ownerId}@example.com","password":"a long enough password","orgRole":"operator"}`),
    ]);
    const answer = await send('/v1/team', { method: 'POST', body, headers: { 'idempotency-key': randomUUID() } });
    expectRefusal(answer, 400, 'VALIDATION_ERROR');
    const team = (await send('/v1/team?limit=200')).body.data as Array<{ email: string }>;
    expect(team.some((member) => member.email === `${ownerId}@example.com`)).toBe(false);
  });

  it.each([
    [
      'a right-to-left override in a member name',
      '/v1/team',
      (tag: string) => ({
        name: `Amina \u202egnp.exe`,
        email: `${tag}@example.com`,
        password: 'a long enough password',
        orgRole: 'operator',
      }),
      'name',
    ],
    [
      'a line break in a key name',
      '/v1/developer/api-keys',
      () => ({ name: 'ci\nINFO forged log line', scopes: ['ledger:read'], environment: 'live' }),
      'name',
    ],
    [
      'an escape in a provider name',
      '/v1/admin/momo-providers',
      (tag: string) => ({ providerCode: `p${tag.slice(0, 6)}`, name: '\u001b[31mred' }),
      'name',
    ],
    [
      'an isolate in a slip reference',
      '/v1/deposits/bank-slips',
      () => ({ walletId, amount: '1.00', currencyCode: 'USD', bankCode: 'stanbic', slipReference: 'REF\u2066-1' }),
      'slipReference',
    ],
    ['a C1 control in a fee schedule name', '/v1/admin/fee-schedules', () => ({ name: 'Fees\u0085' }), 'name'],
  ])('refuses %s with 400 naming the field', async (_what, path, body, field) => {
    const answer = await post(path, body(randomUUID().slice(0, 8)));
    expectRefusal(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.error?.details?.fields?.[0]?.path).toBe(field);
  });

  it('takes names in any script', async () => {
    const answer = await post('/v1/team', {
      name: 'أمينة Nguyễn 王',
      email: `script-${randomUUID().slice(0, 8)}@example.com`,
      password: 'a long enough password',
      orgRole: 'operator',
    });
    expect(answer.status).toBe(201);
  });
});
