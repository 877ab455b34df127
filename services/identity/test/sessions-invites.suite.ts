import { createHash } from 'node:crypto';
import { auditEventSchema, pageSchema, sessionSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  expectErrorBody,
  type IdentityHarness,
  internalToken,
  type SmtpInbox,
  startIdentityHarness,
  startSmtpInbox,
  tenantBody,
  uniqueSlug,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, the identity service over HTTP, and an SMTP server in this
 * process. The invite token is taken from the email as it arrived, exactly as a person would
 * follow the link.
 */
const DASHBOARD_URL = 'http://dashboard.test:3000';
const PASSWORD = 'a brand new passphrase';
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

const anonymous = () => internalToken({ surface: 'public', authMode: 'none' });

/** Creates an organization with an admin and returns the invite token from the email it received. */
async function invitedAdmin(): Promise<{ tenantId: string; memberId: string; email: string; token: string }> {
  const email = `admin-${uniqueSlug('a')}@example.com`;
  const created = await identity.request('POST', '/v1/system/organizations', {
    body: { ...tenantBody({ name: 'Invite Co' }), admin: { name: 'Ada Admin', email } },
  });
  expect(created.status).toBe(201);
  expect(created.body.admin.inviteEmailSent).toBe(true);
  const received = await waitFor(
    async () => smtp.received.find((item) => item.envelope.rcptTo.some((recipient) => recipient.address === email)),
    {
      what: 'invite email',
    },
  );
  const link = received.text.match(/http:\/\/dashboard\.test:3000\/accept-invite\?token=([A-Za-z0-9_-]{43})/);
  expect(link).not.toBeNull();
  return { tenantId: created.body.id, memberId: created.body.admin.id, email, token: (link as RegExpMatchArray)[1] as string };
}

function acceptInvite(token: string, password = PASSWORD) {
  return identity.request('POST', '/v1/auth/accept-invite', { token: anonymous(), body: { token, password } });
}

describe('POST /v1/auth/accept-invite', () => {
  it('activates the invited admin with its password and logs it in', async () => {
    const invite = await invitedAdmin();
    const accepted = await acceptInvite(invite.token);
    expect(accepted.status).toBe(200);
    const session = sessionSchema.parse(accepted.body);
    expect(session).toEqual({
      token: expect.stringMatching(/^sess_[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
      environment: 'live',
      member: {
        id: invite.memberId,
        tenantId: invite.tenantId,
        name: 'Ada Admin',
        email: invite.email,
        orgRole: 'org-admin',
        status: 'active',
        createdAt: expect.any(String),
      },
    });

    const row = await identity.db('team_members').where({ id: invite.memberId }).first();
    expect(row).toMatchObject({ status: 'active', invite_token_hash: null, invite_expires_at: null });
    expect(row.password_hash).toMatch(/^\$argon2id\$/);

    const principal = await identity.request('POST', '/internal/v1/sessions/authenticate', { body: { token: session.token } });
    expect(principal.body).toMatchObject({
      tenantId: invite.tenantId,
      memberId: invite.memberId,
      orgRole: 'org-admin',
      scopes: ['tenant:manage'],
      environment: 'live',
    });

    // The password it chose is now its login.
    const login = await identity.request('POST', '/v1/auth/login', {
      token: anonymous(),
      body: { email: invite.email, password: PASSWORD, environment: 'test' },
    });
    expect(login.status).toBe(200);
    expect(login.body.member.id).toBe(invite.memberId);
  });

  it('works once: a used token is refused with INVALID_INVITE_TOKEN and the password stays the first one', async () => {
    const invite = await invitedAdmin();
    expect((await acceptInvite(invite.token)).status).toBe(200);
    const hashAfterFirst = (await identity.db('team_members').where({ id: invite.memberId }).first()).password_hash;
    expectErrorBody(await acceptInvite(invite.token, 'somebody elses password'), 400, 'INVALID_INVITE_TOKEN');
    expect((await identity.db('team_members').where({ id: invite.memberId }).first()).password_hash).toBe(hashAfterFirst);
  });

  it('lets only one of two concurrent acceptances of one token through', async () => {
    const invite = await invitedAdmin();
    const results = await Promise.all([
      acceptInvite(invite.token, 'first passphrase here'),
      acceptInvite(invite.token, 'second passphrase here'),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 400]);
    expect(await identity.db('sessions').where({ member_id: invite.memberId }).count<{ n: string }[]>('* as n')).toEqual([{ n: '1' }]);
  });

  it('refuses an expired token, an unknown one and one of a deactivated member', async () => {
    const expired = await invitedAdmin();
    await identity
      .db('team_members')
      .where({ id: expired.memberId })
      .update({ invite_expires_at: identity.db.raw("now() - interval '1 second'") });
    expectErrorBody(await acceptInvite(expired.token), 400, 'INVALID_INVITE_TOKEN');
    expect((await identity.db('team_members').where({ id: expired.memberId }).first()).status).toBe('invited');

    expectErrorBody(await acceptInvite('A'.repeat(43)), 400, 'INVALID_INVITE_TOKEN');

    const withdrawn = await invitedAdmin();
    const ownerToken = internalToken({
      surface: 'tenant',
      authMode: 'secret',
      tenantId: withdrawn.tenantId,
      environment: 'live',
      keyId: 'ak_owner',
      scopes: ['tenant:manage'],
    });
    expect(
      (await identity.request('PATCH', `/v1/team/${withdrawn.memberId}`, { token: ownerToken, body: { status: 'deactivated' } })).status,
    ).toBe(200);
    expectErrorBody(await acceptInvite(withdrawn.token), 400, 'INVALID_INVITE_TOKEN');
  });

  it('holds the new password to the same rules as any other', async () => {
    const invite = await invitedAdmin();
    const error = expectErrorBody(await acceptInvite(invite.token, 'too short'), 400, 'VALIDATION_ERROR');
    expect(error.details?.fields).toEqual([expect.objectContaining({ path: 'password' })]);
    // Refused input spends nothing: the invite still works.
    expect((await acceptInvite(invite.token)).status).toBe(200);
  });

  it('records the acceptance and the session with the member as actor, and no secret', async () => {
    const invite = await invitedAdmin();
    const session = sessionSchema.parse((await acceptInvite(invite.token)).body);
    const ownerToken = internalToken({
      surface: 'tenant',
      authMode: 'secret',
      tenantId: invite.tenantId,
      environment: 'test',
      keyId: 'ak_reader',
      scopes: ['audit:read'],
    });
    const listed = await identity.request('GET', '/v1/team/audit-events', { token: ownerToken });
    const events = pageSchema(auditEventSchema).parse(listed.body).data;
    expect(events).toEqual([
      expect.objectContaining({
        action: 'session.created',
        actorType: 'team_member',
        actorId: invite.memberId,
        targetType: 'session',
        targetId: expect.stringMatching(/^ses_/),
        metadata: { environment: 'live', method: 'invite' },
      }),
      expect.objectContaining({
        action: 'team_member.invite_accepted',
        actorType: 'team_member',
        actorId: invite.memberId,
        targetType: 'team_member',
        targetId: invite.memberId,
        metadata: { orgRole: 'org-admin' },
      }),
    ]);
    const rows = JSON.stringify(await identity.db('audit_events').where({ tenant_id: invite.tenantId }));
    for (const secret of [PASSWORD, invite.token, createHash('sha256').update(invite.token).digest('hex'), session.token.slice(5)])
      expect(rows).not.toContain(secret);
  });
});
