import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor, WebhookReceiver } from '@wallet/kit/testing';
import { derivedId, TOPOLOGY } from '@wallet/contracts';
import amqp from 'amqplib';
import { type IdentityHarness, internalToken, startIdentityHarness, tenantBody, uniqueSlug } from './support';

/*
 * An endpoint whose every attempt fails for longer than WEBHOOK_DISABLE_AFTER_SECONDS is disabled:
 * its audit trail says so, and the tenant's active org-admins are emailed through a real SMTP
 * server; members of other roles are not.
 */
let identity: IdentityHarness;
let smtp: SMTPServer;
const inbox: Array<{ to: string[]; text: string }> = [];
const receiver = new WebhookReceiver();

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), text: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  identity = await startIdentityHarness({
    SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_RETRY_DELAYS_SECONDS: '0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2',
    WEBHOOK_DISABLE_AFTER_SECONDS: '1',
  });
});

afterAll(async () => {
  await receiver.close();
  await identity?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('an endpoint failing for too long', () => {
  it('is disabled, and its tenant’s active org-admins are told by email', async () => {
    const tenant = await identity.request('POST', '/v1/tenants', { body: tenantBody() });
    const tenantId = tenant.body.id as string;
    const token = internalToken({ surface: 'tenant', tenantId, environment: 'test', scopes: ['tenant:manage'] });
    const member = (orgRole: string) => ({
      name: `M ${orgRole}`,
      email: `${uniqueSlug(orgRole)}@example.com`,
      password: 'a-long-password-1234',
      orgRole,
    });
    const admin = member('org-admin');
    const operator = member('operator');
    for (const body of [admin, operator]) expect((await identity.request('POST', '/v1/team', { token, body })).status).toBe(201);
    const created = await identity.request('POST', '/v1/developer/webhook-endpoints', { token, body: { url: await receiver.start() } });
    receiver.mode = { kind: 'status', status: 500 };

    const connection = await amqp.connect(identity.amqpUrl);
    const channel = await connection.createConfirmChannel();
    const createdAt = new Date().toISOString();
    const event = {
      id: derivedId('event', `${tenantId}:frozen`, Date.parse(createdAt)),
      type: 'wallet.frozen',
      createdAt,
      environment: 'test',
    };
    const message = { type: 'platform.event.v1', tenantId, objectId: 'wl_x', event: { ...event, data: { object: { id: 'wl_x' } } } };
    channel.publish(TOPOLOGY.platformEvents.exchange, event.type, Buffer.from(JSON.stringify(message)), { persistent: true });
    await channel.waitForConfirms();
    await connection.close();

    const endpointId = created.body.id as string;
    await waitFor(
      async () => {
        const found = await identity.request('GET', `/v1/developer/webhook-endpoints/${endpointId}`, { token });
        return found.body.disabledReason === 'failing' ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'the endpoint disabled' },
    );
    await waitFor(async () => (inbox.length > 0 ? true : undefined), { timeoutMs: 10_000, what: 'the email' });
    expect(inbox.map((email) => email.to)).toEqual([[admin.email]]);
    expect(inbox[0]?.text).toContain(endpointId);
    const [delivery] = (await identity.request('GET', `/v1/developer/webhook-endpoints/${endpointId}/deliveries`, { token })).body.data;
    expect(delivery.status).toBe('failed');
    const audit = await identity.db('audit_events').where({ tenant_id: tenantId, action: 'webhook_endpoint.disabled' });
    expect(audit.map((row: { metadata: { reason: string } }) => row.metadata.reason)).toEqual(['failing']);
  });
});
