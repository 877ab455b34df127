import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { type AuditRecordV1, TOPOLOGY } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type IdentityHarness, internalToken, publishAuditRecord, startIdentityHarness } from './support';

/** Audit records other services publish reach identity's trail once each, as they were sent. */
let identity: IdentityHarness;
let connection: amqp.ChannelModel;
let channel: amqp.ConfirmChannel;

beforeAll(async () => {
  identity = await startIdentityHarness();
  connection = await amqp.connect(identity.amqpUrl);
  channel = await connection.createConfirmChannel();
});

afterAll(async () => {
  await connection?.close();
  await identity?.close();
});

const publish = (record: AuditRecordV1): Promise<void> => publishAuditRecord(channel, record);

function record(tenantId: string, overrides: Partial<AuditRecordV1> = {}): AuditRecordV1 {
  return {
    type: 'audit.record.v1',
    messageId: `msg_${randomUUID()}`,
    tenantId,
    environment: 'live',
    action: 'wallet.frozen',
    actorType: 'team_member',
    actorId: 'usr_operator',
    targetType: 'wallet',
    targetId: `wl_${randomUUID().slice(0, 8)}`,
    metadata: { reason: 'suspected fraud', before: { status: 'active' }, after: { status: 'frozen' } },
    occurredAt: '2026-11-23T09:15:00.123Z',
    ...overrides,
  };
}

async function listFor(tenantId: string, environment: 'test' | 'live', query = ''): Promise<Array<Record<string, unknown>>> {
  const token = internalToken({ surface: 'tenant', tenantId, environment, scopes: ['audit:read'] });
  const response = await identity.request('GET', `/v1/team/audit-events${query}`, { token });
  expect(response.status).toBe(200);
  return response.body.data as Array<Record<string, unknown>>;
}

describe('audit records from other services', () => {
  it('records a redelivered record once, with its own time, visible only from its environment', async () => {
    const tenantId = `tn_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const frozen = record(tenantId);
    await publish(frozen);
    await publish(frozen);
    const seen = await waitFor(
      async () => {
        const events = await listFor(tenantId, 'live');
        return events.length > 0 ? events : undefined;
      },
      { what: 'the audit record' },
    );
    // A later record proves the queue moved past both deliveries of the first.
    await publish(record(tenantId, { action: 'wallet.unfrozen', targetId: frozen.targetId }));
    const events = await waitFor(
      async () => {
        const all = await listFor(tenantId, 'live');
        return all.some((event) => event.action === 'wallet.unfrozen') ? all : undefined;
      },
      { what: 'the second audit record' },
    );
    expect(seen[0]).toMatchObject({
      action: 'wallet.frozen',
      actorType: 'team_member',
      actorId: 'usr_operator',
      targetType: 'wallet',
      targetId: frozen.targetId,
      createdAt: frozen.occurredAt,
      metadata: frozen.metadata,
    });
    expect(events.filter((event) => event.action === 'wallet.frozen')).toHaveLength(1);
    expect(await listFor(tenantId, 'test')).toEqual([]);
    expect(await listFor(tenantId, 'live', `?targetId=${frozen.targetId}&action=wallet.frozen`)).toHaveLength(1);
  });

  it('parks a malformed record in the dead-letter queue without recording anything', async () => {
    const tenantId = `tn_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    await publish({ ...record(tenantId), action: 'Not An Action' } as AuditRecordV1);
    const parked = await waitFor(
      async () => {
        const message = await channel.get(TOPOLOGY.auditRecords.deadLetterQueue, { noAck: true });
        return message ? (JSON.parse(message.content.toString('utf8')) as AuditRecordV1) : undefined;
      },
      { what: 'the malformed record in the dead-letter queue' },
    );
    expect(parked.tenantId).toBe(tenantId);
    expect(await listFor(tenantId, 'live')).toEqual([]);
  });
});
