import { type ServiceConfig, type ServiceParts, startTenantConfigReadModel, type TenantDirectory } from '@wallet/kit';
import { z } from 'zod';
import { PAYMENTS_TOPOLOGY } from '../../topology';

export const tenantsConfigShape = {
  /** How long a request for a tenant payments has not heard of yet waits for its tenant.created event before answering 503. */
  PAYMENTS_TENANT_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(2_000),
};

/** Payments' read model of tenant configuration: consumes identity's tenant events and answers lookups. */
export function startTenantReadModel(parts: ServiceParts<ServiceConfig<typeof tenantsConfigShape>>): Promise<TenantDirectory> {
  return startTenantConfigReadModel(parts, { queue: PAYMENTS_TOPOLOGY.identityEvents.queue, waitMs: parts.config.PAYMENTS_TENANT_WAIT_MS });
}
