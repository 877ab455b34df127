import { type ApiKeyChangedV1, newId, TOPOLOGY } from '@wallet/contracts';
import { currentContext, type OutboxMessage } from '@wallet/kit';

/** `api_key.changed.v1`: gateways drop what they cached of the key, so a change applies at once. */
export function apiKeyChangedMessage(
  key: { id: string; tenantId: string },
  change: ApiKeyChangedV1['change'],
  occurredAt: Date,
): OutboxMessage {
  const event: ApiKeyChangedV1 = {
    type: 'api_key.changed.v1',
    messageId: newId('message'),
    keyId: key.id,
    tenantId: key.tenantId,
    change,
    occurredAt: occurredAt.toISOString(),
  };
  const correlationId = currentContext()?.correlationId;
  return {
    messageId: event.messageId,
    exchange: TOPOLOGY.identityEvents.exchange,
    routingKey: TOPOLOGY.identityEvents.apiKeyChangedRoutingKey,
    type: event.type,
    payload: event,
    ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
  };
}
