import { createHash } from 'node:crypto';
import {
  auditEventSchema,
  type OrgRole,
  pageSchema,
  scopesOfRole,
  sessionPrincipalSchema,
  sessionSchema,
  teamMemberSchema,
} from '@wallet/contracts';
import { start } from '../src/main';
import { expectErrorBody, type IdentityHarness, internalToken, startIdentityHarness, tenantBody, uniqueSlug } from './support';

/**
 * Real: PostgreSQL, RabbitMQ and the identity service over HTTP. Login, logout and invites are
 * public routes: the gateway calls them with an anonymous internal token; the session check is
 * the gateway's own call, with a system token.
 */
const TTL_SECONDS = 600;
let identity: IdentityHarness;

beforeAll(async () => {
  identity = await startIdentityHarness({ IDENTITY_SESSION_TTL_SECONDS: String(TTL_SECONDS) });
});

afterAll(async () => {
  await identity?.close();
});

const PASSWORD = 'correct horse battery staple';
const anonymous = () => internalToken({ surface: 'public', authMode: 'none' });

function ownerToken(tenantId: string): string {
  return internalToken({
    surface: 'tenant',
    authMode: 'secret',
    tenantId,
    environment: 'live',
    keyId: 'ak_owner',
    scopes: ['tenant:manage'],
  });
}

async function newTenant(): Promise<{ tenantId: string; slug: string }> {
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
  expect(created.status).toBe(201);
  return { tenantId: created.body.id, slug: created.body.slug };
}

async function addMember(tenantId: string, orgRole: OrgRole, overrides: { email?: string; password?: string } = {}) {
  const body = {
    name: `Member ${orgRole}`,
    email: overrides.email ?? `${uniqueSlug(orgRole)}@example.com`,
    password: overrides.password ?? PASSWORD,
    orgRole,
  };
  const created = await identity.request('POST', '/v1/team', { token: ownerToken(tenantId), body });
  expect(created.status).toBe(201);
  return teamMemberSchema.parse(created.body);
}

function login(body: Record<string, unknown>) {
  return identity.request('POST', '/v1/auth/login', { token: anonymous(), body });
}

function authenticate(token: string) {
  return identity.request('POST', '/internal/v1/sessions/authenticate', { body: { token } });
}

function logout(token: string) {
  return identity.request('POST', '/v1/auth/logout', { token: anonymous(), body: { token } });
}

async function loggedIn(email: string, extra: Record<string, unknown> = {}) {
  const result = await login({ email, password: PASSWORD, ...extra });
  expect(result.status).toBe(200);
  return sessionSchema.parse(result.body);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('POST /v1/auth/login', () => {
  it('answers a live session for an active member, storing only the token hash', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'operator');
    const before = Date.now();
    const result = await login({ email: member.email, password: PASSWORD });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      token: expect.stringMatching(/^sess_[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
      environment: 'live',
      member,
    });
    const session = sessionSchema.parse(result.body);
    const expiresAt = Date.parse(session.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + TTL_SECONDS * 1000 - 5_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + TTL_SECONDS * 1000 + 5_000);

    const row = await identity.db('sessions').where({ member_id: member.id }).first();
    expect(row).toMatchObject({
      id: expect.stringMatching(/^ses_/),
      token_hash: sha256(session.token),
      tenant_id: tenantId,
      environment: 'live',
      revoked_at: null,
    });
    for (const table of ['sessions', 'team_members', 'audit_events']) {
      const found = await identity.db.raw(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE ?`, [
        `%${session.token.slice(5)}%`,
      ]);
      expect(found.rows[0].n).toBe(0);
    }
  });

  it('takes the address in any letter case and logs into the test environment on request', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'developer', { email: `Mixed.${uniqueSlug('m')}@Example.com` });
    const session = await loggedIn(member.email.toUpperCase(), { environment: 'test' });
    expect(session.environment).toBe('test');
    expect((await authenticate(session.token)).body).toMatchObject({ environment: 'test', memberId: member.id });
  });

  it('answers 401 INVALID_CREDENTIALS alike for a wrong password, an unknown address and a deactivated or invited member', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'operator');
    const wrong = expectErrorBody(await login({ email: member.email, password: 'not the password at all' }), 401, 'INVALID_CREDENTIALS');
    const unknown = expectErrorBody(
      await login({ email: `nobody-${uniqueSlug('n')}@example.com`, password: PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect(unknown.message).toBe(wrong.message);
    expect(unknown.details).toBeUndefined();

    expect(
      (await identity.request('PATCH', `/v1/team/${member.id}`, { token: ownerToken(tenantId), body: { status: 'deactivated' } })).status,
    ).toBe(200);
    expectErrorBody(await login({ email: member.email, password: PASSWORD }), 401, 'INVALID_CREDENTIALS');

    const organization = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Not yet', email: `invited-${uniqueSlug('i')}@example.com` } },
    });
    expectErrorBody(await login({ email: organization.body.admin.email, password: PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expect(await identity.db('sessions').where({ member_id: member.id }).count<{ n: string }[]>('* as n')).toEqual([{ n: '0' }]);
  });

  it('needs tenantSlug when the address is an active member of several organizations', async () => {
    const email = `multi-${uniqueSlug('m')}@example.com`;
    const first = await newTenant();
    const second = await newTenant();
    const firstMember = await addMember(first.tenantId, 'operator', { email });
    const secondMember = await addMember(second.tenantId, 'approver', { email });

    const error = expectErrorBody(await login({ email, password: PASSWORD }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual({
      fields: [expect.objectContaining({ path: 'tenantSlug' })],
      tenantSlugs: expect.arrayContaining([first.slug, second.slug]),
    });
    // A wrong password learns nothing about where the address is a member.
    expectErrorBody(await login({ email, password: 'not the password at all' }), 401, 'INVALID_CREDENTIALS');

    expect((await loggedIn(email, { tenantSlug: first.slug })).member).toEqual(firstMember);
    expect((await loggedIn(email, { tenantSlug: second.slug })).member).toEqual(secondMember);
    expectErrorBody(await login({ email, password: PASSWORD, tenantSlug: uniqueSlug('none') }), 401, 'INVALID_CREDENTIALS');

    // Once only one membership is active, the address alone is enough again.
    expect(
      (
        await identity.request('PATCH', `/v1/team/${secondMember.id}`, {
          token: ownerToken(second.tenantId),
          body: { status: 'deactivated' },
        })
      ).status,
    ).toBe(200);
    expect((await loggedIn(email)).member.id).toBe(firstMember.id);
  });

  it.each([
    ['no password', { email: 'a@example.com' }],
    ['an unknown environment', { email: 'a@example.com', password: PASSWORD, environment: 'prod' }],
    ['a malformed tenantSlug', { email: 'a@example.com', password: PASSWORD, tenantSlug: 'Not A Slug' }],
  ])('refuses %s with VALIDATION_ERROR', async (_label, body) => {
    expectErrorBody(await login(body), 400, 'VALIDATION_ERROR');
  });
});

describe('POST /internal/v1/sessions/authenticate', () => {
  it('tells the gateway whose session it is, with the scopes of the current role', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'developer');
    const session = await loggedIn(member.email);
    const result = await authenticate(session.token);
    expect(result.status).toBe(200);
    expect(sessionPrincipalSchema.parse(result.body)).toEqual({
      sessionId: expect.stringMatching(/^ses_/),
      tenantId,
      environment: 'live',
      memberId: member.id,
      orgRole: 'developer',
      scopes: scopesOfRole('developer'),
      expiresAt: session.expiresAt,
    });

    // A role change applies to sessions already open.
    await identity.request('PATCH', `/v1/team/${member.id}`, { token: ownerToken(tenantId), body: { orgRole: 'approver' } });
    expect((await authenticate(session.token)).body).toMatchObject({ orgRole: 'approver', scopes: scopesOfRole('approver') });
  });

  it('answers 401 INVALID_SESSION for unknown and malformed tokens', async () => {
    expectErrorBody(await authenticate(`sess_${'A'.repeat(43)}`), 401, 'INVALID_SESSION');
    expectErrorBody(await authenticate('not-a-session'), 401, 'INVALID_SESSION');
  });

  it('stops working once the session expires', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'operator');
    const session = await loggedIn(member.email);
    expect((await authenticate(session.token)).status).toBe(200);
    await identity
      .db('sessions')
      .where({ token_hash: sha256(session.token) })
      .update({ expires_at: identity.db.raw("now() - interval '1 second'") });
    expectErrorBody(await authenticate(session.token), 401, 'INVALID_SESSION');
  });

  it('is for the gateway (system token) only', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'operator');
    const session = await loggedIn(member.email);
    expectErrorBody(
      await identity.request('POST', '/internal/v1/sessions/authenticate', { token: anonymous(), body: { token: session.token } }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    expectErrorBody(
      await identity.request('POST', '/internal/v1/sessions/authenticate', { token: ownerToken(tenantId), body: { token: session.token } }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe('ending sessions', () => {
  it('logout revokes the session of the token; an unknown or spent token also answers 200', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'operator');
    const session = await loggedIn(member.email);
    const other = await loggedIn(member.email);

    const result = await logout(session.token);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ revoked: true });
    expectErrorBody(await authenticate(session.token), 401, 'INVALID_SESSION');
    // Only that one: the member's other session stays open.
    expect((await authenticate(other.token)).status).toBe(200);

    const revokedBefore = await identity.db('sessions').whereNotNull('revoked_at').pluck('id');
    expect((await logout(session.token)).body).toEqual({ revoked: true });
    expect((await logout(`sess_${'B'.repeat(43)}`)).body).toEqual({ revoked: true });
    expect((await logout('whatever')).body).toEqual({ revoked: true });
    expect((await identity.db('sessions').whereNotNull('revoked_at').pluck('id')).sort()).toEqual(revokedBefore.sort());
  });

  it('deactivating a member revokes all its sessions, and reactivating does not bring them back', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'approver');
    const sessions = [await loggedIn(member.email), await loggedIn(member.email, { environment: 'test' })];
    const deactivated = await identity.request('PATCH', `/v1/team/${member.id}`, {
      token: ownerToken(tenantId),
      body: { status: 'deactivated' },
    });
    expect(deactivated.status).toBe(200);
    for (const session of sessions) expectErrorBody(await authenticate(session.token), 401, 'INVALID_SESSION');
    expect(await identity.db('sessions').where({ member_id: member.id }).whereNull('revoked_at').count<{ n: string }[]>('* as n')).toEqual([
      { n: '0' },
    ]);

    await identity.request('PATCH', `/v1/team/${member.id}`, { token: ownerToken(tenantId), body: { status: 'active' } });
    for (const session of sessions) expectErrorBody(await authenticate(session.token), 401, 'INVALID_SESSION');
    expect((await authenticate((await loggedIn(member.email)).token)).status).toBe(200);

    const events = pageSchema(auditEventSchema).parse(
      (await identity.request('GET', `/v1/team/audit-events?action=team_member.deactivated`, { token: ownerToken(tenantId) })).body,
    ).data;
    expect(events).toEqual([
      expect.objectContaining({ targetId: member.id, metadata: { before: { status: 'active' }, revokedSessions: 2 } }),
    ]);
  });
});

describe('session audit events', () => {
  it('records session.created and session.revoked with the member as actor, and never the token', async () => {
    const { tenantId } = await newTenant();
    const member = await addMember(tenantId, 'operator');
    const session = await loggedIn(member.email, { environment: 'test' });
    await logout(session.token);
    const sessionId = (
      await identity
        .db('sessions')
        .where({ token_hash: sha256(session.token) })
        .first()
    ).id as string;

    const listed = await identity.request('GET', `/v1/team/audit-events?targetId=${sessionId}`, { token: ownerToken(tenantId) });
    const events = pageSchema(auditEventSchema).parse(listed.body).data;
    expect(events).toEqual([
      expect.objectContaining({
        action: 'session.revoked',
        actorType: 'team_member',
        actorId: member.id,
        targetType: 'session',
        targetId: sessionId,
        metadata: { environment: 'test', reason: 'logout' },
      }),
      expect.objectContaining({
        action: 'session.created',
        actorType: 'team_member',
        actorId: member.id,
        targetType: 'session',
        targetId: sessionId,
        metadata: { environment: 'test', method: 'password' },
      }),
    ]);
    const rows = await identity.db('audit_events').where({ tenant_id: tenantId });
    expect(rows.every((row) => row.environment === null)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(session.token.slice(5));
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });
});

describe('IDENTITY_SESSION_TTL_SECONDS', () => {
  it.each(['299', '2592001', 'twelve hours'])('refuses %s at start', async (value) => {
    await expect(start({ ...identity.env, IDENTITY_SESSION_TTL_SECONDS: value })).rejects.toThrow(/IDENTITY_SESSION_TTL_SECONDS/);
  });
});
