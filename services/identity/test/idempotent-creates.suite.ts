import { randomBytes, randomUUID } from 'node:crypto';
import { errorBodySchema } from '@wallet/contracts';
import { IDEMPOTENCY_TABLE } from '@wallet/kit';
import { start } from '../src/main';
import { countRows, type IdentityHarness, internalToken, startIdentityHarness, tenantBody, uniqueSlug } from './support';

/**
 * Every creating POST of identity honours an Idempotency-Key: a retry replays the first answer
 * (status and bytes), another body with the key is 422 IDEMPOTENCY_KEY_REUSED, and nothing is
 * created twice. Answers holding a secret shown once are remembered sealed, never in clear.
 */
let identity: IdentityHarness;
let tenantId: string;

beforeAll(async () => {
  identity = await startIdentityHarness();
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
  tenantId = created.body.id as string;
});

afterAll(async () => {
  await identity?.close();
});

const tenantToken = () =>
  internalToken({ surface: 'tenant', authMode: 'secret', tenantId, environment: 'test', keyId: 'ak_caller', scopes: ['tenant:manage'] });

interface Sent {
  status: number;
  text: string;
  replayed: string | null;
}

async function send(path: string, token: string, body: unknown, key: string, port = identity.service.port): Promise<Sent> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'x-internal-token': token, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
}

/** Anything the created thing could be found by: its rows, whatever the table. */
async function created(table: string): Promise<number> {
  return countRows(identity.db, table);
}

interface CreateCase {
  name: string;
  path: () => string;
  token: () => string;
  body: () => unknown;
  table: string;
  status: number;
  /** The answer's field holding a secret shown once, if any. */
  secret?: string;
}

const member = () => ({
  name: 'Ops',
  email: `ops-${randomUUID().slice(0, 8)}@example.com`,
  password: 'correct-horse-battery-9',
  orgRole: 'operator',
});
const keyBody = () => ({ name: `key-${randomUUID().slice(0, 6)}`, authMode: 'secret', scopes: ['wallets:read'], environment: 'test' });

const CASES: CreateCase[] = [
  {
    name: 'POST /v1/tenants',
    path: () => '/v1/tenants',
    token: () => internalToken(),
    body: () => tenantBody(),
    table: 'tenants',
    status: 201,
  },
  {
    name: 'POST /v1/system/organizations',
    path: () => '/v1/system/organizations',
    token: () => internalToken(),
    body: () => ({ name: 'Org', slug: uniqueSlug('org'), config: tenantBody().config }),
    table: 'tenants',
    status: 201,
  },
  {
    name: 'POST /v1/tenants/{id}/api-keys',
    path: () => `/v1/tenants/${tenantId}/api-keys`,
    token: () => internalToken(),
    body: keyBody,
    table: 'api_keys',
    status: 201,
    secret: 'key',
  },
  {
    name: 'POST /v1/developer/api-keys',
    path: () => '/v1/developer/api-keys',
    token: tenantToken,
    body: keyBody,
    table: 'api_keys',
    status: 201,
    secret: 'key',
  },
  { name: 'POST /v1/team', path: () => '/v1/team', token: tenantToken, body: member, table: 'team_members', status: 201 },
  {
    name: 'POST /v1/team/invites',
    path: () => '/v1/team/invites',
    token: tenantToken,
    body: () => ({ name: 'Invited', email: `invited-${randomUUID().slice(0, 8)}@example.com`, orgRole: 'operator' }),
    table: 'team_members',
    status: 201,
    // No mail server here: the answer holds the invite's link.
    secret: 'inviteUrl',
  },
  {
    name: 'POST /v1/admin/momo-providers',
    path: () => '/v1/admin/momo-providers',
    token: tenantToken,
    body: () => ({ providerCode: `p${randomBytes(4).toString('hex')}`, name: 'Provider' }),
    table: 'momo_providers',
    status: 201,
    secret: 'webhookSecret',
  },
];

describe('Idempotency-Key on creations', () => {
  it.each(CASES.map((each) => [each.name, each] as const))(
    '%s: a retry replays the first answer and creates nothing more; another body is 422',
    async (_name, each) => {
      const key = `idem-${randomUUID()}`;
      const body = each.body();
      const before = await created(each.table);
      const first = await send(each.path(), each.token(), body, key);
      expect(first.status).toBe(each.status);
      const again = await send(each.path(), each.token(), body, key);
      expect(again).toEqual({ status: first.status, text: first.text, replayed: 'true' });
      expect(await created(each.table)).toBe(before + 1);

      const other = await send(each.path(), each.token(), each.body(), key);
      expect(`${other.status} ${errorBodySchema.parse(JSON.parse(other.text)).error.code}`).toBe('422 IDEMPOTENCY_KEY_REUSED');
      expect(await created(each.table)).toBe(before + 1);

      if (each.secret) {
        const secret = JSON.parse(first.text)[each.secret] as string;
        expect(secret.length).toBeGreaterThan(20);
        const row = await identity.db(IDEMPOTENCY_TABLE).where({ idempotency_key: key }).first<{ response_body: Buffer }>('response_body');
        expect(row?.response_body.toString('latin1')).not.toContain(secret);
        expect(row?.response_body.toString('latin1').startsWith('sealed1:')).toBe(true);
      }
    },
  );

  it('replays a rotation (key and webhook secret) instead of rotating twice', async () => {
    const key = JSON.parse((await send('/v1/developer/api-keys', tenantToken(), keyBody(), `idem-${randomUUID()}`)).text) as { id: string };
    const provider = JSON.parse(
      (
        await send(
          '/v1/admin/momo-providers',
          tenantToken(),
          { providerCode: `r${randomBytes(4).toString('hex')}`, name: 'P' },
          `idem-${randomUUID()}`,
        )
      ).text,
    ) as { id: string };
    for (const [path, token] of [
      [`/v1/developer/api-keys/${key.id}/rotate`, tenantToken()],
      [`/v1/tenants/${tenantId}/api-keys/${key.id}/rotate`, internalToken()],
      [`/v1/admin/momo-providers/${provider.id}/rotate-secret`, tenantToken()],
    ] as const) {
      const idempotencyKey = `idem-${randomUUID()}`;
      const first = await send(path, token, { expiresInSeconds: 60 }, idempotencyKey);
      expect({ path, status: first.status }).toEqual({ path, status: 200 });
      expect(await send(path, token, { expiresInSeconds: 60 }, idempotencyKey)).toEqual({
        status: 200,
        text: first.text,
        replayed: 'true',
      });
    }
    // One rotation each: the key's first secret plus one new one, not two.
    expect(await countRows(identity.db, 'api_key_credentials', { key_id: key.id })).toBe(3);
  });
});

describe('sealed answers and the master key', () => {
  it('re-seals remembered answers under a new master key at start, and refuses to start without the key that sealed them', async () => {
    // Its own database: the only sealed values in it are the remembered answers.
    const alone = await startIdentityHarness();
    try {
      const aloneTenant = (await alone.request('POST', '/v1/tenants', { body: tenantBody() })).body.id as string;
      const token = internalToken({
        surface: 'tenant',
        authMode: 'secret',
        tenantId: aloneTenant,
        environment: 'test',
        keyId: 'ak_caller',
        scopes: ['tenant:manage'],
      });
      const idempotencyKey = `idem-${randomUUID()}`;
      const body = keyBody();
      const first = await send('/v1/developer/api-keys', token, body, idempotencyKey, alone.service.port);
      expect(first.status).toBe(201);

      const newKey = `test-master-2:${randomBytes(32).toString('base64')}`;
      const rotated = await start({
        ...alone.env,
        SECRETS_ENCRYPTION_KEY: newKey,
        SECRETS_ENCRYPTION_KEYS_OLD: alone.env.SECRETS_ENCRYPTION_KEY,
      });
      try {
        const row = await alone
          .db(IDEMPOTENCY_TABLE)
          .where({ idempotency_key: idempotencyKey })
          .first<{ response_body: Buffer }>('response_body');
        expect(row?.response_body.toString('latin1').startsWith('sealed1:test-master-2:')).toBe(true);
        expect(await send('/v1/developer/api-keys', token, body, idempotencyKey, rotated.port)).toEqual({
          status: 201,
          text: first.text,
          replayed: 'true',
        });
      } finally {
        await rotated.close();
      }
      await expect(
        start({
          ...alone.env,
          SECRETS_ENCRYPTION_KEY: `test-master-3:${randomBytes(32).toString('base64')}`,
          SECRETS_ENCRYPTION_KEYS_OLD: '',
        }),
      ).rejects.toThrow(/idempotency answers are encrypted with master key "test-master-2"/);
    } finally {
      await alone.close();
    }
  });
});
