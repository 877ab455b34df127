import { newId } from '@wallet/contracts/ids';
import { type AuditRecordV1 } from '@wallet/contracts/messages/audit-record.v1';
import { TOPOLOGY } from '@wallet/contracts/messages/topology';
import { currentContext } from './context';
import { auditActorOf } from './http';
import type { InternalClaims } from './internal-token';
import type { OutboxMessage } from './outbox';

/**
 * An audit record as an outbox message, for services other than identity: enqueue it in the
 * transaction of the action, so the action and its record are committed together.
 */
export function auditRecordMessage(
  record: Omit<AuditRecordV1, 'type' | 'messageId' | 'occurredAt'> & { occurredAt?: string },
): OutboxMessage {
  const message: AuditRecordV1 = {
    type: 'audit.record.v1',
    messageId: newId('message'),
    ...record,
    occurredAt: record.occurredAt ?? new Date().toISOString(),
  };
  const correlationId = currentContext()?.correlationId;
  return {
    messageId: message.messageId,
    exchange: TOPOLOGY.auditRecords.exchange,
    routingKey: TOPOLOGY.auditRecords.routingKey,
    type: message.type,
    payload: message,
    ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
  };
}

/** The actor fields of an audit record for a call with these claims; the key behind an actor goes into metadata. */
export function auditActorFieldsOf(claims: InternalClaims): { actorType: string; actorId: string; metadata: Record<string, unknown> } {
  const { actorType, actorId, apiKeyId } = auditActorOf(claims);
  return { actorType, actorId, metadata: apiKeyId && actorType !== 'api_key' ? { apiKeyId } : {} };
}
