import { newId, type Tenant, type TenantEventV1, TOPOLOGY } from '@wallet/contracts';
import { currentContext, type OutboxMessage } from '@wallet/kit';

/** `tenant.created.v1`: the ledger provisions the tenant's system accounts from it. */
export function tenantCreatedMessage(tenant: Tenant): OutboxMessage {
  const event: TenantEventV1 = {
    type: 'tenant.created.v1',
    messageId: newId('message'),
    tenantId: tenant.id,
    name: tenant.name,
    slug: tenant.slug,
    config: tenant.config,
    occurredAt: tenant.createdAt,
  };
  const correlationId = currentContext()?.correlationId;
  return {
    messageId: event.messageId,
    exchange: TOPOLOGY.identityEvents.exchange,
    routingKey: TOPOLOGY.identityEvents.tenantCreatedRoutingKey,
    type: event.type,
    payload: event,
    ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
  };
}
