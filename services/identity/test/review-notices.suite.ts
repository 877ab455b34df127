import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { type AuditRecordV1, type OrgRole, teamMemberSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  countRows,
  type IdentityHarness,
  internalToken,
  type SmtpInbox,
  startIdentityHarness,
  startSmtpInbox,
  tenantBody,
  uniqueSlug,
  publishAuditRecord,
} from './support';

/**
 * Reviewers are e-mailed when a case awaits them, over a real SMTP server: the audit record of a
 * requested or half-approved case, published as payments and treasury publish it, reaches the
 * members who may decide it, and no one else; a redelivered record mails no one twice.
 */
const DASHBOARD_URL = 'http://dashboard.test:3000';
let smtp: SmtpInbox;
let identity: IdentityHarness;
let connection: amqp.ChannelModel;
let channel: amqp.ConfirmChannel;

beforeAll(async () => {
  smtp = await startSmtpInbox();
  identity = await startIdentityHarness({ SMTP_URL: smtp.url, DASHBOARD_URL });
  connection = await amqp.connect(identity.amqpUrl);
  channel = await connection.createConfirmChannel();
});

afterAll(async () => {
  await connection?.close();
  await identity?.close();
  await smtp?.close();
});

const publish = (record: AuditRecordV1): Promise<void> => publishAuditRecord(channel, record);

type Team = Record<'maker' | 'approver' | 'otherApprover' | 'admin' | 'observer' | 'inactiveApprover', { id: string; email: string }>;

async function teamOf(tenantId: string): Promise<Team> {
  const root = internalToken({
    surface: 'tenant',
    authMode: 'secret',
    tenantId,
    environment: 'live',
    keyId: 'ak_root',
    scopes: ['tenant:manage'],
  });
  const add = async (orgRole: OrgRole) => {
    const email = `${uniqueSlug(orgRole)}@example.com`;
    const body = { name: `The ${orgRole}`, email, password: 'a reviewers passphrase', orgRole };
    const member = teamMemberSchema.parse((await identity.request('POST', '/v1/team', { token: root, body })).body);
    return { id: member.id, email };
  };
  const team = {
    maker: await add('operator'),
    approver: await add('approver'),
    otherApprover: await add('approver'),
    admin: await add('org-admin'),
    observer: await add('observer'),
    inactiveApprover: await add('approver'),
  };
  await identity.request('PATCH', `/v1/team/${team.inactiveApprover.id}`, { token: root, body: { status: 'deactivated' } });
  return team;
}

function caseRecord(tenantId: string, action: string, actorId: string, metadata: Record<string, unknown>): AuditRecordV1 {
  return {
    type: 'audit.record.v1',
    messageId: `msg_${randomUUID()}`,
    tenantId,
    environment: 'live',
    action,
    actorType: 'team_member',
    actorId,
    targetType: 'payout_case',
    targetId: `pc_${randomUUID().replace(/-/g, '').slice(0, 26).toUpperCase()}`,
    metadata,
    occurredAt: new Date().toISOString(),
  };
}

const mailedFor = (caseId: string) => smtp.received.filter((email) => email.text.includes(caseId));
const recipients = (caseId: string) =>
  mailedFor(caseId)
    .flatMap((email) => email.envelope.rcptTo.map((to) => to.address))
    .sort();

describe('review notices', () => {
  it('e-mails every active member who may approve a requested payout, with its amount and link, and no one else, once', async () => {
    const tenantId = (await identity.request('POST', '/v1/tenants', { body: tenantBody() })).body.id as string;
    const team = await teamOf(tenantId);
    const requested = caseRecord(tenantId, 'payout.requested', team.maker.id, {
      amount: '150.00',
      currencyCode: 'USD',
      approvalsRequired: 1,
      approverRole: null,
    });
    await publish(requested);
    await publish(requested);
    const expected = [team.approver.email, team.otherApprover.email, team.admin.email].sort();
    await waitFor(async () => (recipients(requested.targetId).length >= 3 ? true : undefined), { what: 'the reviewers mailed' });
    const [mail] = mailedFor(requested.targetId);
    expect(mail?.text).toContain(`Payout ${requested.targetId} of USD 150.00 awaits your approval`);
    expect(mail?.text).toContain(`${DASHBOARD_URL}/payouts/${requested.targetId}`);
    // Sent and forgotten: nothing is left to send, and the redelivery mailed no one again.
    await waitFor(
      async () => ((await countRows(identity.db, 'review_notices', { case_id: requested.targetId })) === 0 ? true : undefined),
      {
        what: 'the notice sent and deleted',
      },
    );
    expect(recipients(requested.targetId)).toEqual(expected);
  });

  it('after a first approval, e-mails the approvers of the named role other than the first approver', async () => {
    const tenantId = (await identity.request('POST', '/v1/tenants', { body: tenantBody() })).body.id as string;
    const team = await teamOf(tenantId);
    const halfApproved = caseRecord(tenantId, 'payout.approval_recorded', team.approver.id, {
      approvals: 1,
      approvalsRequired: 2,
      requestedBy: team.maker.id,
      approverRole: 'approver',
    });
    await publish(halfApproved);
    await waitFor(async () => (recipients(halfApproved.targetId).length >= 1 ? true : undefined), { what: 'the second approver mailed' });
    await waitFor(
      async () => ((await countRows(identity.db, 'review_notices', { case_id: halfApproved.targetId })) === 0 ? true : undefined),
      {
        what: 'the notice sent',
      },
    );
    expect(recipients(halfApproved.targetId)).toEqual([team.otherApprover.email]);
    expect(mailedFor(halfApproved.targetId)[0]?.text).toContain('has its first approval and awaits a second');
  });

  it('writes no notice for any other audit record', async () => {
    const tenantId = (await identity.request('POST', '/v1/tenants', { body: tenantBody() })).body.id as string;
    const approved = caseRecord(tenantId, 'payout.approved', 'usr_someone', {});
    await publish(approved);
    await waitFor(async () => ((await countRows(identity.db, 'audit_events', { target_id: approved.targetId })) === 1 ? true : undefined), {
      what: 'the record stored',
    });
    expect(await countRows(identity.db, 'review_notices', { case_id: approved.targetId })).toBe(0);
  });
});
