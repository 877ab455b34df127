import { createHash } from 'node:crypto';
import {
  auditEventSchema,
  type OrgRole,
  pageSchema,
  scopesOfRole,
  sessionSchema,
  teamInviteSchema,
  teamMemberSchema,
} from '@wallet/contracts';
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
 * Real: PostgreSQL, RabbitMQ, the identity service over HTTP, and an SMTP server in this process.
 * A member's invite is followed as the person would: the token is read from the email as it
 * arrived, then accepted, then used to log in.
 */
const DASHBOARD_URL = 'http://dashboard.test:3000';
const LINK = /http:\/\/dashboard\.test:3000\/accept-invite\?token=([A-Za-z0-9_-]{43})/;
const PASSWORD = 'an invited passphrase';
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

/** A dashboard session of this member, with the scopes of its role. */
function sessionToken(tenantId: string, member: { id: string; orgRole: OrgRole }): string {
  return internalToken({
    surface: 'tenant',
    authMode: 'session',
    tenantId,
    environment: 'live',
    keyId: null,
    scopes: scopesOfRole(member.orgRole),
    actor: { type: 'team_member', id: member.id },
  });
}

const keyToken = (tenantId: string, scopes: string[]) =>
  internalToken({ surface: 'tenant', authMode: 'secret', tenantId, environment: 'live', keyId: 'ak_invites', scopes });

/** A tenant with an active member of this role (added with a password by the root key), whose session invites. */
async function tenantWith(orgRole: OrgRole): Promise<{ tenantId: string; inviter: string; inviterId: string; root: string }> {
  const created = await identity.request('POST', '/v1/tenants', { body: tenantBody({ name: 'Invite Works' }) });
  const tenantId = created.body.id as string;
  const root = keyToken(tenantId, ['tenant:manage']);
  const body = { name: 'Ada Admin', email: `${uniqueSlug('inviter')}@example.com`, password: 'the inviters passphrase', orgRole };
  const member = teamMemberSchema.parse((await identity.request('POST', '/v1/team', { token: root, body })).body);
  return { tenantId, inviter: sessionToken(tenantId, member), inviterId: member.id, root };
}

function invite(token: string, body: { name?: string; email?: string; orgRole: OrgRole }) {
  const email = body.email ?? `${uniqueSlug('invitee')}@example.com`;
  return identity.request('POST', '/v1/team/invites', { token, body: { name: body.name ?? 'Ivy Invitee', email, orgRole: body.orgRole } });
}

async function tokenMailedTo(address: string, after = 0): Promise<string> {
  const received = await waitFor(async () => smtp.received.slice(after).find((email) => email.envelope.rcptTo[0]?.address === address), {
    what: `the invite email to ${address}`,
  });
  const link = received.text.match(LINK);
  expect(link).not.toBeNull();
  return (link as RegExpMatchArray)[1] as string;
}

function acceptInvite(token: string) {
  return identity.request('POST', '/v1/auth/accept-invite', { token: anonymous(), body: { token, password: PASSWORD } });
}

describe('POST /v1/team/invites', () => {
  it('emails the invite, whose link activates the member with its own password, and it logs in', async () => {
    const { tenantId, inviter } = await tenantWith('org-admin');
    const email = `${uniqueSlug('ivy')}@example.com`;
    const answered = await invite(inviter, { email, orgRole: 'operator' });
    expect(answered.status).toBe(201);
    const invited = teamInviteSchema.parse(answered.body);
    expect(invited).toMatchObject({ tenantId, email, orgRole: 'operator', status: 'invited', inviteEmailSent: true, inviteUrl: null });
    const expiresInDays = (Date.parse(invited.inviteExpiresAt) - Date.now()) / 86_400_000;
    expect(expiresInDays).toBeGreaterThan(6.9);
    expect(expiresInDays).toBeLessThanOrEqual(7);

    const token = await tokenMailedTo(email);
    const mail = smtp.mailTo(email)?.text ?? '';
    expect(mail).toContain('Subject: Ada Admin invited you to Invite Works');
    expect(mail).toContain('Ada Admin has invited you to join Invite Works with the operator role.');
    const row = await identity.db('team_members').where({ id: invited.id }).first();
    expect(row).toMatchObject({
      status: 'invited',
      password_hash: null,
      invite_token_hash: createHash('sha256').update(token).digest('hex'),
    });
    expect(row.invite_sent_at).not.toBeNull();

    const accepted = await acceptInvite(token);
    expect(accepted.status).toBe(200);
    expect(sessionSchema.parse(accepted.body).member).toMatchObject({ id: invited.id, status: 'active', orgRole: 'operator' });
    const login = await identity.request('POST', '/v1/auth/login', { token: anonymous(), body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.body.member.id).toBe(invited.id);
    expectErrorBody(await acceptInvite(token), 400, 'INVALID_INVITE_TOKEN');
  });

  it('answers the link to the inviter when the mail server refuses the address, and that link works', async () => {
    const { inviter } = await tenantWith('org-admin');
    const email = `${uniqueSlug('gone')}@bounce.test`;
    const invited = teamInviteSchema.parse((await invite(inviter, { email, orgRole: 'observer' })).body);
    expect(invited.inviteEmailSent).toBe(false);
    const link = invited.inviteUrl?.match(LINK);
    expect(link).toBeTruthy();
    expect((await identity.db('team_members').where({ id: invited.id }).first()).invite_sent_at).toBeNull();
    // The link is not stored anywhere it could be shown again.
    const again = await identity.request('GET', `/v1/team/${invited.id}`, { token: inviter });
    expect(JSON.stringify(again.body)).not.toContain('token');
    expect((await acceptInvite((link as RegExpMatchArray)[1] as string)).status).toBe(200);
  });

  it('refuses an address already in the tenant, in any case, with EMAIL_TAKEN, and emails nobody', async () => {
    const { inviter } = await tenantWith('org-admin');
    const email = `${uniqueSlug('twice')}@example.com`;
    expect((await invite(inviter, { email, orgRole: 'observer' })).status).toBe(201);
    const before = smtp.received.length;
    expectErrorBody(await invite(inviter, { email: email.toUpperCase(), orgRole: 'observer' }), 409, 'EMAIL_TAKEN');
    expect(await identity.db('team_members').whereRaw('lower(email) = ?', [email]).count<{ n: string }[]>('* as n')).toEqual([{ n: '1' }]);
    await tokenMailedTo(email);
    expect(smtp.received.length).toBe(before);
  });

  it("refuses a role the caller's scopes do not cover with SCOPE_ESCALATION, inviting and emailing no one", async () => {
    const { tenantId, inviter: developer, root } = await tenantWith('developer');
    const email = `${uniqueSlug('escalate')}@example.com`;
    const refused = expectErrorBody(await invite(developer, { email, orgRole: 'org-admin' }), 403, 'SCOPE_ESCALATION');
    expect(refused.details).toMatchObject({ orgRole: 'org-admin' });
    expectErrorBody(await invite(keyToken(tenantId, ['team:manage']), { email, orgRole: 'operator' }), 403, 'SCOPE_ESCALATION');
    expect(await identity.db('team_members').where({ email }).first()).toBeUndefined();
    expect(smtp.mailTo(email)).toBeUndefined();

    // Nor may it renew the invite of a member whose role it does not cover.
    const admin = teamInviteSchema.parse((await invite(root, { orgRole: 'org-admin' })).body);
    const resent = await identity.request('POST', `/v1/team/${admin.id}/invite`, { token: developer });
    expectErrorBody(resent, 403, 'SCOPE_ESCALATION');
  });
});

describe('POST /v1/team/{memberId}/invite', () => {
  it('emails a new link and the earlier one stops working', async () => {
    const { inviter } = await tenantWith('org-admin');
    const email = `${uniqueSlug('resend')}@example.com`;
    const invited = teamInviteSchema.parse((await invite(inviter, { email, orgRole: 'approver' })).body);
    const firstToken = await tokenMailedTo(email);
    const mailsBefore = smtp.received.length;

    const resent = await identity.request('POST', `/v1/team/${invited.id}/invite`, { token: inviter });
    expect(resent.status).toBe(200);
    expect(teamInviteSchema.parse(resent.body)).toMatchObject({
      id: invited.id,
      status: 'invited',
      inviteEmailSent: true,
      inviteUrl: null,
    });
    const secondToken = await tokenMailedTo(email, mailsBefore);
    expect(secondToken).not.toBe(firstToken);

    expectErrorBody(await acceptInvite(firstToken), 400, 'INVALID_INVITE_TOKEN');
    expect((await acceptInvite(secondToken)).status).toBe(200);
  });

  it('refuses a member who is no longer invited (409 MEMBER_NOT_INVITED) and an unknown one (404)', async () => {
    const { tenantId, inviter } = await tenantWith('org-admin');
    const invited = teamInviteSchema.parse((await invite(inviter, { orgRole: 'observer' })).body);
    const token = await tokenMailedTo(invited.email);
    expect((await acceptInvite(token)).status).toBe(200);
    const active = expectErrorBody(
      await identity.request('POST', `/v1/team/${invited.id}/invite`, { token: inviter }),
      409,
      'MEMBER_NOT_INVITED',
    );
    expect(active.details).toEqual({ status: 'active' });
    expectErrorBody(await identity.request('POST', '/v1/team/usr_unknown/invite', { token: inviter }), 404, 'MEMBER_NOT_FOUND');
    const other = await tenantWith('org-admin');
    expectErrorBody(await identity.request('POST', `/v1/team/${invited.id}/invite`, { token: other.inviter }), 404, 'MEMBER_NOT_FOUND');
    expect((await identity.db('team_members').where({ id: invited.id, tenant_id: tenantId }).first()).status).toBe('active');
  });
});

describe('team invite audit events', () => {
  it('records who invited whom and who sent the invite again, with no token', async () => {
    const { tenantId, inviter, inviterId } = await tenantWith('org-admin');
    const invited = teamInviteSchema.parse((await invite(inviter, { orgRole: 'finance-viewer' })).body);
    const firstToken = await tokenMailedTo(invited.email);
    const mailsBefore = smtp.received.length;
    expect((await identity.request('POST', `/v1/team/${invited.id}/invite`, { token: inviter })).status).toBe(200);
    const secondToken = await tokenMailedTo(invited.email, mailsBefore);

    const listed = await identity.request('GET', `/v1/team/audit-events?targetId=${invited.id}`, {
      token: keyToken(tenantId, ['audit:read']),
    });
    const events = pageSchema(auditEventSchema).parse(listed.body).data;
    const expected = { email: invited.email, orgRole: 'finance-viewer' };
    const recorded = events.map(({ action, actorType, actorId, targetType, metadata }) => ({
      action,
      actorType,
      actorId,
      targetType,
      metadata,
    }));
    const by = { actorType: 'team_member', actorId: inviterId, targetType: 'team_member', metadata: expected };
    expect(recorded).toEqual([
      { action: 'team_member.invite_resent', ...by },
      { action: 'team_member.invited', ...by },
    ]);
    const rows = JSON.stringify(await identity.db('audit_events').where({ tenant_id: tenantId }));
    for (const token of [firstToken, secondToken]) {
      expect(rows).not.toContain(token);
      expect(rows).not.toContain(createHash('sha256').update(token).digest('hex'));
    }
  });
});
