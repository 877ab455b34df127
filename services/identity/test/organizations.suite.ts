import { createHash } from 'node:crypto';
import { errorBodySchema, organizationSchema, pageSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  countRows,
  type HttpResult,
  type IdentityHarness,
  type SmtpInbox,
  startIdentityHarness,
  startSmtpInbox,
  tenantBody,
  uniqueSlug,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, the identity service over HTTP, and an SMTP server in this
 * process that receives the invite emails nodemailer sends. It refuses recipients at
 * bounce.test, which is how a failed send is produced.
 */
const DASHBOARD_URL = 'http://dashboard.test:3000';
let smtp: SmtpInbox;
let identity: IdentityHarness;

beforeAll(async () => {
  smtp = await startSmtpInbox();
  identity = await startIdentityHarness({ SMTP_URL: smtp.url, DASHBOARD_URL });
});

afterAll(async () => {
  await identity?.close();
  await smtp?.close();
});

function expectErrorBody(result: HttpResult, status: number, code: string) {
  expect(result.status).toBe(status);
  const parsed = errorBodySchema.parse(result.body);
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.correlationId).toBe(result.headers.get('x-correlation-id'));
  return parsed.error;
}

describe('POST /v1/system/organizations', () => {
  it('creates the organization with an invited org-admin and emails the invite', async () => {
    const email = `ada+${uniqueSlug('a')}@example.com`;
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody({ name: 'Ada Ltd' }), admin: { name: 'Ada Lovelace', email } },
    });
    expect(created.status).toBe(201);
    const organization = organizationSchema.parse(created.body);
    expect(organization.admin).toEqual({
      id: expect.stringMatching(/^usr_/),
      tenantId: organization.id,
      name: 'Ada Lovelace',
      email,
      orgRole: 'org-admin',
      status: 'invited',
      createdAt: expect.any(String),
      inviteEmailSent: true,
    });

    const received = await waitFor(async () => smtp.mailTo(email), { what: 'invite email' });
    expect(received.envelope.mailFrom && received.envelope.mailFrom.address).toBe('no-reply@wallet.local');
    expect(received.text).toContain(email);
    expect(received.text).toContain('Ada Ltd');
    const link = received.text.match(/http:\/\/dashboard\.test:3000\/accept-invite\?token=([A-Za-z0-9_-]{43})/);
    expect(link).not.toBeNull();
    const token = (link as RegExpMatchArray)[1] as string;

    // Only the SHA-256 of the token is kept: nothing in the database holds the token itself.
    const member = await identity.db('team_members').where({ id: organization.admin?.id }).first();
    expect(member.invite_token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(member.password_hash).toBeNull();
    expect(member.invite_expires_at.getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
    for (const table of ['tenants', 'team_members', 'outbox']) {
      const found = await identity.db.raw(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE ?`, [`%${token}%`]);
      expect(found.rows[0].n).toBe(0);
    }
  });

  it('reports inviteEmailSent false when the mail server refuses, and keeps the organization', async () => {
    const email = `nobody-${uniqueSlug('b')}@bounce.test`;
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Nobody', email } },
    });
    expect(created.status).toBe(201);
    expect(created.body.admin).toMatchObject({ email, status: 'invited', inviteEmailSent: false });
    const read = await identity.request('GET', `/v1/system/organizations/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.admin).toMatchObject({ id: created.body.admin.id, inviteEmailSent: false });
    expect(smtp.mailTo(email)).toBeUndefined();
  });

  it('creates an organization without an admin and sends nothing', async () => {
    const before = smtp.received.length;
    const created = await identity.request('POST', '/v1/system/organizations', { body: tenantBody() });
    expect(created.status).toBe(201);
    expect(organizationSchema.parse(created.body).admin).toBeNull();
    expect(await countRows(identity.db, 'team_members', { tenant_id: created.body.id })).toBe(0);
    expect(smtp.received.length).toBe(before);
  });

  it('refuses a slug already taken and writes neither the tenant nor the admin', async () => {
    const slug = uniqueSlug('orgtaken');
    expect((await identity.request('POST', '/v1/system/organizations', { body: tenantBody({ slug }) })).status).toBe(201);
    const membersBefore = await countRows(identity.db, 'team_members');
    const email = `late-${uniqueSlug('c')}@example.com`;
    const again = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody({ slug }), admin: { name: 'Late', email } },
    });
    expectErrorBody(again, 409, 'SLUG_TAKEN');
    expect(await countRows(identity.db, 'team_members')).toBe(membersBefore);
    // The event is written in the tenant's transaction, so no tenant row means no event either
    // (published rows leave the outbox, so its row count proves nothing here).
    expect(smtp.mailTo(email)).toBeUndefined();
  });

  it('refuses an admin without a valid email address', async () => {
    const error = expectErrorBody(
      await identity.request('POST', '/v1/system/organizations', {
        body: { ...tenantBody(), admin: { name: 'X', email: 'not-an-address' } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details?.fields).toEqual([expect.objectContaining({ path: 'admin.email' })]);
  });

  it('keeps member emails unique per tenant whatever their case', async () => {
    const email = `Grace.${uniqueSlug('d')}@Example.com`;
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Grace', email } },
    });
    expect(created.status).toBe(201);
    const duplicate = identity.db('team_members').insert({
      id: 'usr_duplicate',
      tenant_id: created.body.id,
      name: 'Grace again',
      email: email.toLowerCase(),
      org_role: 'user',
      status: 'active',
    });
    await expect(duplicate).rejects.toThrow(/team_members_tenant_email/);
  });
});

describe('GET /v1/system/organizations/{id}', () => {
  it('returns the organization with its admin', async () => {
    const email = `read-${uniqueSlug('e')}@example.com`;
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Reader', email } },
    });
    const read = await identity.request('GET', `/v1/system/organizations/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('answers 404 TENANT_NOT_FOUND for an unknown id', async () => {
    expectErrorBody(await identity.request('GET', '/v1/system/organizations/tn_00000000000000000000000000'), 404, 'TENANT_NOT_FOUND');
  });
});

describe('GET /v1/system/organizations', () => {
  const listSchema = pageSchema(organizationSchema);

  it('pages newest first and the cursor continues exactly where the last page ended', async () => {
    const createdIds: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const created = await identity.request('POST', '/v1/system/organizations', { body: tenantBody({ name: `Paged ${index}` }) });
      createdIds.push(created.body.id);
    }
    const first = await identity.request('GET', '/v1/system/organizations?limit=2');
    expect(first.status).toBe(200);
    const firstPage = listSchema.parse(first.body);
    expect(firstPage.data.map((organization) => organization.id)).toEqual([createdIds[2], createdIds[1]]);
    expect(firstPage.nextCursor).toEqual(expect.any(String));

    const second = await identity.request(
      'GET',
      `/v1/system/organizations?limit=2&cursor=${encodeURIComponent(firstPage.nextCursor as string)}`,
    );
    expect(second.status).toBe(200);
    const secondPage = listSchema.parse(second.body);
    expect(secondPage.data[0]?.id).toBe(createdIds[0]);

    // Walking every page returns each organization once, in the order they were created, reversed.
    const walked = [...firstPage.data, ...secondPage.data].map((organization) => organization.id);
    let cursor = secondPage.nextCursor;
    while (cursor) {
      const next = listSchema.parse(
        (await identity.request('GET', `/v1/system/organizations?limit=2&cursor=${encodeURIComponent(cursor)}`)).body,
      );
      walked.push(...next.data.map((organization) => organization.id));
      cursor = next.nextCursor;
    }
    const stored = await identity.db('tenants').orderBy('seq', 'desc').pluck('id');
    expect(walked).toEqual(stored);
  });

  it('includes each organization admin in the list', async () => {
    const email = `listed-${uniqueSlug('f')}@example.com`;
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Listed', email } },
    });
    const listed = await identity.request('GET', '/v1/system/organizations?limit=1');
    expect(listed.body.data).toEqual([created.body]);
  });

  it('defaults to 50 per page', async () => {
    const listed = await identity.request('GET', '/v1/system/organizations');
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBe(Math.min(50, await countRows(identity.db, 'tenants')));
  });

  it.each([
    ['not base64 json', 'garbage!'],
    ['json of the wrong shape', Buffer.from('{"seq":"abc"}').toString('base64url')],
  ])('refuses a malformed cursor (%s) with INVALID_CURSOR', async (_label, cursor) => {
    expectErrorBody(await identity.request('GET', `/v1/system/organizations?cursor=${encodeURIComponent(cursor)}`), 400, 'INVALID_CURSOR');
  });

  it.each(['0', '201', 'ten'])('refuses limit=%s with VALIDATION_ERROR', async (limit) => {
    expectErrorBody(await identity.request('GET', `/v1/system/organizations?limit=${limit}`), 400, 'VALIDATION_ERROR');
  });

  it('requires an internal token', async () => {
    expectErrorBody(await identity.request('GET', '/v1/system/organizations', { token: null }), 401, 'INVALID_INTERNAL_TOKEN');
  });
});
