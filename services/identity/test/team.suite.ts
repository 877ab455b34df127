import {
  auditEventSchema,
  type OrgRole,
  pageSchema,
  scopesOfRole,
  sessionSchema,
  teamInviteSchema,
  teamMemberSchema,
} from '@wallet/contracts';
import { expectErrorBody, type IdentityHarness, internalToken, startIdentityHarness, tenantBody, uniqueSlug } from './support';

/**
 * Real: PostgreSQL, RabbitMQ and the identity service over HTTP. Tenant calls carry the
 * internal token the gateway would sign for a key (or, with an actor, a dashboard session).
 */
let identity: IdentityHarness;

beforeAll(async () => {
  identity = await startIdentityHarness();
});

afterAll(async () => {
  await identity?.close();
});

const PASSWORD = 'correct horse battery staple';

interface Caller {
  tenantId: string;
  token: string;
  keyId: string | null;
}

/** A key of the tenant with these scopes; `environment` matters to nothing here, the team is shared. */
function keyCaller(tenantId: string, scopes: string[], environment: 'test' | 'live' = 'live'): Caller {
  const keyId = `ak_${uniqueSlug('k').replace(/-/g, '')}`;
  return { tenantId, keyId, token: internalToken({ surface: 'tenant', authMode: 'secret', tenantId, environment, keyId, scopes }) };
}

/** A dashboard session of this member, with the scopes of its role. */
function sessionCaller(tenantId: string, member: { id: string; orgRole: OrgRole }): Caller {
  return {
    tenantId,
    keyId: null,
    token: internalToken({
      surface: 'tenant',
      authMode: 'session',
      tenantId,
      environment: 'live',
      keyId: null,
      scopes: scopesOfRole(member.orgRole),
      actor: { type: 'team_member', id: member.id },
    }),
  };
}

async function newTenant(): Promise<{ tenantId: string; owner: Caller }> {
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
  expect(created.status).toBe(201);
  return { tenantId: created.body.id, owner: keyCaller(created.body.id, ['tenant:manage']) };
}

function memberBody(orgRole: OrgRole, overrides: { email?: string; name?: string; password?: string } = {}) {
  return {
    name: overrides.name ?? `Member ${orgRole}`,
    email: overrides.email ?? `${uniqueSlug(orgRole)}@example.com`,
    password: overrides.password ?? PASSWORD,
    orgRole,
  };
}

async function addMember(caller: Caller, orgRole: OrgRole, overrides: { email?: string; name?: string } = {}) {
  const created = await identity.request('POST', '/v1/team', { token: caller.token, body: memberBody(orgRole, overrides) });
  expect(created.status).toBe(201);
  return teamMemberSchema.parse(created.body);
}

function patchMember(caller: Caller, memberId: string, body: Record<string, unknown>) {
  return identity.request('PATCH', `/v1/team/${memberId}`, { token: caller.token, body });
}

async function auditEvents(caller: Caller, query: string) {
  const listed = await identity.request('GET', `/v1/team/audit-events?${query}`, { token: caller.token });
  expect(listed.status).toBe(200);
  return pageSchema(auditEventSchema).parse(listed.body).data;
}

describe('POST /v1/team', () => {
  it('creates an active member whose password is stored only as an argon2id hash', async () => {
    const { owner, tenantId } = await newTenant();
    const body = memberBody('operator', { name: 'Olu Operator' });
    const created = await identity.request('POST', '/v1/team', { token: owner.token, body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
      tenantId,
      name: 'Olu Operator',
      email: body.email,
      orgRole: 'operator',
      status: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(JSON.stringify(created.body)).not.toContain(PASSWORD);

    const row = await identity.db('team_members').where({ id: created.body.id }).first();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain(PASSWORD);
    const stored = await identity.db.raw(`SELECT count(*)::int AS n FROM team_members t WHERE t::text LIKE ?`, [`%${PASSWORD}%`]);
    expect(stored.rows[0].n).toBe(0);
  });

  it('refuses an address already in the tenant, whatever its case, with EMAIL_TAKEN', async () => {
    const { owner } = await newTenant();
    const email = `Dup.${uniqueSlug('e')}@Example.com`;
    await addMember(owner, 'observer', { email });
    expectErrorBody(
      await identity.request('POST', '/v1/team', { token: owner.token, body: memberBody('user', { email: email.toLowerCase() }) }),
      409,
      'EMAIL_TAKEN',
    );
  });

  it('allows the same address in another tenant', async () => {
    const email = `shared-${uniqueSlug('e')}@example.com`;
    await addMember((await newTenant()).owner, 'user', { email });
    await addMember((await newTenant()).owner, 'user', { email });
  });

  it.each([
    ['a password of 11 characters', { password: 'a'.repeat(11) }, 'password'],
    ['a password of 201 characters', { password: 'a'.repeat(201) }, 'password'],
    ['an unknown role', { orgRole: 'owner' }, 'orgRole'],
    ['a malformed email', { email: 'nope' }, 'email'],
  ])('refuses %s with VALIDATION_ERROR', async (_label, override, field) => {
    const { owner } = await newTenant();
    const error = expectErrorBody(
      await identity.request('POST', '/v1/team', { token: owner.token, body: { ...memberBody('user'), ...override } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details?.fields).toEqual([expect.objectContaining({ path: field })]);
  });

  it('accepts passwords of exactly 12 and 200 characters', async () => {
    const { owner } = await newTenant();
    for (const password of ['p'.repeat(12), 'p'.repeat(200)]) {
      expect((await identity.request('POST', '/v1/team', { token: owner.token, body: { ...memberBody('user'), password } })).status).toBe(
        201,
      );
    }
  });

  it('is for tenant credentials only', async () => {
    expectErrorBody(await identity.request('POST', '/v1/team', { body: memberBody('user') }), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('POST /v1/team/invites without a mail server', () => {
  it('answers the accept link to the inviting caller alone, once; the link activates the member', async () => {
    const { owner, tenantId } = await newTenant();
    const email = `linked-${uniqueSlug('e')}@example.com`;
    const answered = await identity.request('POST', '/v1/team/invites', {
      token: owner.token,
      body: { name: 'Lin Link', email, orgRole: 'approver' },
    });
    expect(answered.status).toBe(201);
    const invited = teamInviteSchema.parse(answered.body);
    expect(invited).toMatchObject({ tenantId, email, orgRole: 'approver', status: 'invited', inviteEmailSent: false });
    // The default DASHBOARD_URL: the dashboard listener of `npm start`.
    const link = invited.inviteUrl?.match(/^http:\/\/localhost:8082\/accept-invite\?token=([A-Za-z0-9_-]{43})$/);
    expect(link).toBeTruthy();
    const token = (link as RegExpMatchArray)[1] as string;

    // Nothing else shows it again: not the member, the list or the audit trail.
    const shown = [
      await identity.request('GET', `/v1/team/${invited.id}`, { token: owner.token }),
      await identity.request('GET', '/v1/team', { token: owner.token }),
      await identity.request('GET', `/v1/team/audit-events?targetId=${invited.id}`, { token: owner.token }),
    ];
    for (const answer of shown) expect(JSON.stringify(answer.body)).not.toContain(token);

    const accepted = await identity.request('POST', '/v1/auth/accept-invite', {
      token: internalToken({ surface: 'public', authMode: 'none' }),
      body: { token, password: PASSWORD },
    });
    expect(accepted.status).toBe(200);
    expect(sessionSchema.parse(accepted.body).member).toMatchObject({ id: invited.id, status: 'active' });
  });
});

describe('scope escalation', () => {
  it('refuses a key holding only team:manage any role with scopes, and allows the scopeless user role', async () => {
    const { tenantId } = await newTenant();
    const teamOnly = keyCaller(tenantId, ['team:manage']);
    for (const orgRole of ['org-admin', 'operator', 'observer'] as const) {
      const error = expectErrorBody(
        await identity.request('POST', '/v1/team', { token: teamOnly.token, body: memberBody(orgRole) }),
        403,
        'SCOPE_ESCALATION',
      );
      expect(error.details).toMatchObject({ orgRole, missingScopes: expect.arrayContaining([scopesOfRole(orgRole)[0]]) });
    }
    await addMember(teamOnly, 'user');
    expect(await identity.db('team_members').where({ tenant_id: tenantId }).pluck('org_role')).toEqual(['user']);
  });

  it('refuses a developer session making an org-admin, or changing one', async () => {
    const { owner, tenantId } = await newTenant();
    const developer = await addMember(owner, 'developer');
    const admin = await addMember(owner, 'org-admin');
    const asDeveloper = sessionCaller(tenantId, developer);

    expectErrorBody(
      await identity.request('POST', '/v1/team', { token: asDeveloper.token, body: memberBody('org-admin') }),
      403,
      'SCOPE_ESCALATION',
    );
    expectErrorBody(await patchMember(asDeveloper, admin.id, { status: 'deactivated' }), 403, 'SCOPE_ESCALATION');
    expectErrorBody(await patchMember(asDeveloper, admin.id, { orgRole: 'user' }), 403, 'SCOPE_ESCALATION');
    // Nor promote itself.
    expectErrorBody(await patchMember(asDeveloper, developer.id, { orgRole: 'org-admin' }), 403, 'SCOPE_ESCALATION');
    // What its own scopes cover, it may do.
    const peer = await addMember(asDeveloper, 'developer');
    expect((await patchMember(asDeveloper, peer.id, { orgRole: 'user' })).body.orgRole).toBe('user');

    expect((await identity.request('GET', `/v1/team/${admin.id}`, { token: owner.token })).body).toMatchObject({
      orgRole: 'org-admin',
      status: 'active',
    });
  });

  it('lets a key with team:manage and the operator scopes manage operators but not approvers', async () => {
    const { owner, tenantId } = await newTenant();
    const operatorsManager = keyCaller(tenantId, ['team:manage', ...scopesOfRole('operator')]);
    const operator = await addMember(operatorsManager, 'operator');
    const approver = await addMember(owner, 'approver');
    expectErrorBody(await patchMember(operatorsManager, operator.id, { orgRole: 'approver' }), 403, 'SCOPE_ESCALATION');
    expectErrorBody(await patchMember(operatorsManager, approver.id, { orgRole: 'operator' }), 403, 'SCOPE_ESCALATION');
    // ledger:read covers analytics:read, so every observer scope is covered too.
    expect((await patchMember(operatorsManager, operator.id, { orgRole: 'observer' })).body.orgRole).toBe('observer');
    expect((await patchMember(operatorsManager, operator.id, { status: 'deactivated' })).body.status).toBe('deactivated');
  });
});

describe('GET /v1/team and GET /v1/team/{memberId}', () => {
  it('lists the tenant members newest first, pages with a cursor and filters by role and status', async () => {
    const { owner, tenantId } = await newTenant();
    const created = [];
    for (const orgRole of ['operator', 'approver', 'operator', 'observer', 'operator'] as const)
      created.push(await addMember(owner, orgRole));
    const other = await newTenant();
    await addMember(other.owner, 'operator');
    expect((await patchMember(owner, (created[2] as { id: string }).id, { status: 'deactivated' })).status).toBe(200);

    const listSchema = pageSchema(teamMemberSchema);
    const first = listSchema.parse((await identity.request('GET', '/v1/team?limit=2', { token: owner.token })).body);
    expect(first.data.map((member) => member.id)).toEqual([created[4]?.id, created[3]?.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const walked = [...first.data];
    let cursor = first.nextCursor;
    while (cursor) {
      const next = listSchema.parse(
        (await identity.request('GET', `/v1/team?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: owner.token })).body,
      );
      walked.push(...next.data);
      cursor = next.nextCursor;
    }
    expect(walked.map((member) => member.id)).toEqual(created.map((member) => member.id).reverse());
    expect(walked.every((member) => member.tenantId === tenantId)).toBe(true);
    for (const member of walked)
      expect(Object.keys(member).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'orgRole', 'status', 'tenantId']);

    const operators = listSchema.parse((await identity.request('GET', '/v1/team?orgRole=operator', { token: owner.token })).body);
    expect(operators.data.map((member) => member.id)).toEqual([created[4]?.id, created[2]?.id, created[0]?.id]);
    const activeOperators = listSchema.parse(
      (await identity.request('GET', '/v1/team?orgRole=operator&status=active', { token: owner.token })).body,
    );
    expect(activeOperators.data.map((member) => member.id)).toEqual([created[4]?.id, created[0]?.id]);
    const deactivated = listSchema.parse((await identity.request('GET', '/v1/team?status=deactivated', { token: owner.token })).body);
    expect(deactivated.data.map((member) => member.id)).toEqual([created[2]?.id]);
  });

  it('is the same team from the test environment', async () => {
    const { owner, tenantId } = await newTenant();
    const member = await addMember(owner, 'observer');
    const fromTest = keyCaller(tenantId, ['tenant:manage'], 'test');
    expect((await identity.request('GET', '/v1/team', { token: fromTest.token })).body.data.map((item: { id: string }) => item.id)).toEqual(
      [member.id],
    );
    expect((await identity.request('GET', `/v1/team/${member.id}`, { token: fromTest.token })).body).toEqual(member);
  });

  it.each([
    ['limit=0', 'VALIDATION_ERROR'],
    ['limit=201', 'VALIDATION_ERROR'],
    ['orgRole=owner', 'VALIDATION_ERROR'],
    ['status=gone', 'VALIDATION_ERROR'],
    ['cursor=garbage!', 'INVALID_CURSOR'],
  ])('refuses ?%s with %s', async (query, code) => {
    const { owner } = await newTenant();
    expectErrorBody(await identity.request('GET', `/v1/team?${query}`, { token: owner.token }), 400, code);
  });

  it('gets one member, and answers 404 MEMBER_NOT_FOUND for an unknown id or another tenant member', async () => {
    const { owner } = await newTenant();
    const member = await addMember(owner, 'approver');
    const read = await identity.request('GET', `/v1/team/${member.id}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(member);

    const other = await newTenant();
    expectErrorBody(await identity.request('GET', `/v1/team/${member.id}`, { token: other.owner.token }), 404, 'MEMBER_NOT_FOUND');
    expectErrorBody(
      await identity.request('GET', '/v1/team/usr_00000000000000000000000000', { token: owner.token }),
      404,
      'MEMBER_NOT_FOUND',
    );
  });

  it('still serves the audit trail at /v1/team/audit-events', async () => {
    const { owner } = await newTenant();
    const listed = await identity.request('GET', '/v1/team/audit-events', { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [], nextCursor: null });
  });
});

describe('GET /v1/team/names', () => {
  it("names the tenant's members among the ids, to a session of any role; another tenant's member and unknown ids are left out", async () => {
    const { tenantId, owner } = await newTenant();
    const maker = await addMember(owner, 'operator', { name: 'Amara Okafor' });
    const checker = await addMember(owner, 'approver', { name: 'Kofi Mensah' });
    const other = await newTenant();
    const stranger = await addMember(other.owner, 'operator', { name: 'Not Theirs' });
    const ids = [checker.id, maker.id, stranger.id, 'usr_00000000000000000000000000'].join(',');
    const observer = sessionCaller(tenantId, await addMember(owner, 'observer'));
    const named = await identity.request('GET', `/v1/team/names?ids=${ids}`, { token: observer.token });
    expect(named.status).toBe(200);
    expect(named.body.data).toEqual(
      expect.arrayContaining([
        { id: maker.id, name: 'Amara Okafor' },
        { id: checker.id, name: 'Kofi Mensah' },
      ]),
    );
    expect(named.body.data).toHaveLength(2);
    expectErrorBody(await identity.request('GET', '/v1/team/names?ids=wl_1', { token: owner.token }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await identity.request('GET', '/v1/team/names', { token: owner.token }), 400, 'VALIDATION_ERROR');
  });
});

describe('PATCH /v1/team/{memberId}', () => {
  it('changes the role, deactivates and reactivates', async () => {
    const { owner } = await newTenant();
    const member = await addMember(owner, 'operator');
    const promoted = await patchMember(owner, member.id, { orgRole: 'approver' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ ...member, orgRole: 'approver' });

    const deactivated = await patchMember(owner, member.id, { status: 'deactivated' });
    expect(deactivated.body).toEqual({ ...member, orgRole: 'approver', status: 'deactivated' });
    const both = await patchMember(owner, member.id, { status: 'active', orgRole: 'observer' });
    expect(both.body).toEqual({ ...member, orgRole: 'observer', status: 'active' });
    expect((await identity.request('GET', `/v1/team/${member.id}`, { token: owner.token })).body).toEqual(both.body);
  });

  it('refuses an empty change and unknown values', async () => {
    const { owner } = await newTenant();
    const member = await addMember(owner, 'operator');
    expectErrorBody(await patchMember(owner, member.id, {}), 400, 'VALIDATION_ERROR');
    expectErrorBody(await patchMember(owner, member.id, { status: 'invited' }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await patchMember(owner, member.id, { orgRole: 'root' }), 400, 'VALIDATION_ERROR');
  });

  it("answers 404 MEMBER_NOT_FOUND for another tenant's member and leaves it unchanged", async () => {
    const { owner } = await newTenant();
    const member = await addMember(owner, 'operator');
    const other = await newTenant();
    expectErrorBody(await patchMember(other.owner, member.id, { status: 'deactivated' }), 404, 'MEMBER_NOT_FOUND');
    expect((await identity.request('GET', `/v1/team/${member.id}`, { token: owner.token })).body).toEqual(member);
  });

  it('puts a member who never accepted the invite back to invited, not active', async () => {
    const created = await identity.request('POST', '/v1/system/organizations', {
      body: { ...tenantBody(), admin: { name: 'Invited', email: `inv-${uniqueSlug('i')}@example.com` } },
    });
    const owner = keyCaller(created.body.id, ['tenant:manage']);
    const invitedId = created.body.admin.id as string;
    expect((await patchMember(owner, invitedId, { status: 'deactivated' })).body.status).toBe('deactivated');
    expect((await patchMember(owner, invitedId, { status: 'active' })).body.status).toBe('invited');
    // `active` on an invited member changes nothing either.
    expect((await patchMember(owner, invitedId, { status: 'active' })).body.status).toBe('invited');
  });
});

describe('the last active org-admin', () => {
  it('can be neither demoted nor deactivated; with a second admin it can', async () => {
    const { owner } = await newTenant();
    const first = await addMember(owner, 'org-admin');
    expectErrorBody(await patchMember(owner, first.id, { orgRole: 'operator' }), 409, 'LAST_ORG_ADMIN');
    expectErrorBody(await patchMember(owner, first.id, { status: 'deactivated' }), 409, 'LAST_ORG_ADMIN');
    // Neither a deactivated nor an invited org-admin counts.
    const second = await addMember(owner, 'org-admin');
    expect((await patchMember(owner, second.id, { status: 'deactivated' })).status).toBe(200);
    expectErrorBody(await patchMember(owner, first.id, { orgRole: 'operator' }), 409, 'LAST_ORG_ADMIN');
    expect((await patchMember(owner, second.id, { status: 'active' })).status).toBe(200);
    expect((await patchMember(owner, first.id, { orgRole: 'operator' })).body.orgRole).toBe('operator');
    expectErrorBody(await patchMember(owner, second.id, { orgRole: 'user' }), 409, 'LAST_ORG_ADMIN');
    // A no-op on the last admin is no demotion.
    expect((await patchMember(owner, second.id, { orgRole: 'org-admin', status: 'active' })).status).toBe(200);
  });

  it.each([
    ['demotions', { orgRole: 'operator' }],
    ['deactivations', { status: 'deactivated' }],
  ])('survives two concurrent %s of the two admins: one wins, one gets LAST_ORG_ADMIN', async (_label, change) => {
    for (let round = 0; round < 5; round += 1) {
      const { owner, tenantId } = await newTenant();
      const admins = [await addMember(owner, 'org-admin'), await addMember(owner, 'org-admin')];
      const results = await Promise.all(admins.map((admin) => patchMember(owner, admin.id, change)));
      expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
      expect(results.find((result) => result.status === 409)?.body.error.code).toBe('LAST_ORG_ADMIN');
      const active = await identity
        .db('team_members')
        .where({ tenant_id: tenantId, org_role: 'org-admin', status: 'active' })
        .count<{ n: string }[]>('* as n');
      expect(Number(active[0]?.n)).toBe(1);
    }
  });
});

describe('GET /internal/v1/tenants/{tenantId}/members/{memberId}', () => {
  it('tells other services who a member is, with the scopes its role grants while active', async () => {
    const { owner, tenantId } = await newTenant();
    const approver = await addMember(owner, 'approver');
    const found = await identity.request('GET', `/internal/v1/tenants/${tenantId}/members/${approver.id}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ id: approver.id, tenantId, orgRole: 'approver', status: 'active', scopes: scopesOfRole('approver') });

    await patchMember(owner, approver.id, { status: 'deactivated' });
    expect((await identity.request('GET', `/internal/v1/tenants/${tenantId}/members/${approver.id}`)).body).toEqual({
      id: approver.id,
      tenantId,
      orgRole: 'approver',
      status: 'deactivated',
      scopes: [],
    });
  });

  it('answers 404 MEMBER_NOT_FOUND under another tenant, and only to the system', async () => {
    const { owner, tenantId } = await newTenant();
    const member = await addMember(owner, 'operator');
    const other = await newTenant();
    expectErrorBody(await identity.request('GET', `/internal/v1/tenants/${other.tenantId}/members/${member.id}`), 404, 'MEMBER_NOT_FOUND');
    expectErrorBody(
      await identity.request('GET', `/internal/v1/tenants/${tenantId}/members/${member.id}`, { token: owner.token }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe('team audit events', () => {
  it('records who created, promoted, deactivated and reactivated whom', async () => {
    const { owner, tenantId } = await newTenant();
    const admin = await addMember(owner, 'org-admin');
    const asAdmin = sessionCaller(tenantId, admin);
    const member = await addMember(asAdmin, 'operator');
    await patchMember(asAdmin, member.id, { orgRole: 'approver' });
    await patchMember(owner, member.id, { status: 'deactivated' });
    await patchMember(owner, member.id, { status: 'active' });

    const events = await auditEvents(owner, `targetId=${member.id}`);
    expect(events.map((event) => event.action)).toEqual([
      'team_member.reactivated',
      'team_member.deactivated',
      'team_member.role_changed',
      'team_member.created',
    ]);
    const [reactivated, deactivated, roleChanged, created] = events;
    expect(created).toMatchObject({
      actorType: 'team_member',
      actorId: admin.id,
      targetType: 'team_member',
      targetId: member.id,
      metadata: { email: member.email, orgRole: 'operator' },
    });
    expect(roleChanged).toMatchObject({
      actorType: 'team_member',
      actorId: admin.id,
      metadata: { before: { orgRole: 'operator' }, after: { orgRole: 'approver' } },
    });
    expect(deactivated).toMatchObject({
      actorType: 'api_key',
      actorId: owner.keyId,
      metadata: { before: { status: 'active' }, revokedSessions: 0 },
    });
    expect(reactivated).toMatchObject({ actorType: 'api_key', actorId: owner.keyId, metadata: { after: { status: 'active' } } });

    // The admin itself was created by the key; team records are tenant-wide, seen from both environments.
    const adminCreated = await auditEvents(keyCaller(tenantId, ['audit:read'], 'test'), `targetId=${admin.id}&action=team_member.created`);
    expect(adminCreated).toEqual([
      expect.objectContaining({ actorType: 'api_key', actorId: owner.keyId, metadata: { email: admin.email, orgRole: 'org-admin' } }),
    ]);
    const rows = await identity.db('audit_events').where({ tenant_id: tenantId });
    expect(rows.every((row) => row.environment === null)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });

  it('records nothing when a change is refused', async () => {
    const { owner, tenantId } = await newTenant();
    const admin = await addMember(owner, 'org-admin');
    expectErrorBody(await patchMember(owner, admin.id, { orgRole: 'user' }), 409, 'LAST_ORG_ADMIN');
    expectErrorBody(
      await identity.request('POST', '/v1/team', { token: keyCaller(tenantId, ['team:manage']).token, body: memberBody('org-admin') }),
      403,
      'SCOPE_ESCALATION',
    );
    expect((await auditEvents(owner, '')).map((event) => event.action)).toEqual(['team_member.created']);
  });

  it('cannot be edited or deleted: the table refuses UPDATE and DELETE', async () => {
    const { owner, tenantId } = await newTenant();
    await addMember(owner, 'user');
    await expect(identity.db('audit_events').where({ tenant_id: tenantId }).update({ action: 'team_member.forged' })).rejects.toThrow(
      /append-only/,
    );
    await expect(identity.db('audit_events').where({ tenant_id: tenantId }).delete()).rejects.toThrow(/append-only/);
    expect((await auditEvents(owner, '')).map((event) => event.action)).toEqual(['team_member.created']);
  });
});
