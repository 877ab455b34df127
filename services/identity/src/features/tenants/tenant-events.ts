import { newId, type Tenant, type TenantEventV1, TOPOLOGY } from '@wallet/contracts';
import { currentContext, type OutboxMessage } from '@wallet/kit';

/** `tenant.created.v1`: the ledger provisions the tenant's system accounts from it. */
export function tenantCreatedMessage(tenant: Tenant): OutboxMessage {
  return tenantEventMessage('tenant.created.v1', tenant, tenant.createdAt);
}

/**
 * `tenant.updated.v1`, with the whole configuration after the change: the ledger provisions any
 * newly allowed currency, payments replaces its copy when `occurredAt` is not older than it.
 */
export function tenantUpdatedMessage(tenant: Tenant, occurredAt: string): OutboxMessage {
  return tenantEventMessage('tenant.updated.v1', tenant, occurredAt);
}

function tenantEventMessage(type: TenantEventV1['type'], tenant: Tenant, occurredAt: string): OutboxMessage {
  const event: TenantEventV1 = {
    type,
    messageId: newId('message'),
    tenantId: tenant.id,
    name: tenant.name,
    slug: tenant.slug,
    config: tenant.config,
    occurredAt,
  };
  const correlationId = currentContext()?.correlationId;
  const { identityEvents } = TOPOLOGY;
  return {
    messageId: event.messageId,
    exchange: identityEvents.exchange,
    routingKey: type === 'tenant.created.v1' ? identityEvents.tenantCreatedRoutingKey : identityEvents.tenantUpdatedRoutingKey,
    type: event.type,
    payload: event,
    ...(correlationId ? { headers: { 'x-correlation-id': correlationId } } : {}),
  };
}
