import { tenantSchema } from '@wallet/contracts/http/identity';
import { callInternal, type InternalPeer, SYSTEM_CALL_CLAIMS, unexpectedAnswer } from '../internal-call';
import type { TenantConfig } from './tenant-config-store';

/**
 * A tenant's configuration as identity holds it now (`GET /v1/tenants/{id}`, system token), for a
 * tenant a read model has not heard of; null for a tenant identity does not know.
 */
export function tenantConfigFromIdentity(identity: InternalPeer): (tenantId: string) => Promise<TenantConfig | null> {
  return async (tenantId) => {
    const answer = await callInternal(identity, {
      method: 'GET',
      pathWithQuery: `/v1/tenants/${encodeURIComponent(tenantId)}`,
      claims: SYSTEM_CALL_CLAIMS,
    });
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw unexpectedAnswer(identity.name, answer);
    const tenant = tenantSchema.parse(answer.body);
    return { tenantId: tenant.id, ...tenant.config };
  };
}
