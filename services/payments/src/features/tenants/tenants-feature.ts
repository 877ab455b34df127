import type { ServiceConfig, ServiceParts } from '@wallet/kit';
import { z } from 'zod';
import { TenantDirectory } from './tenant-directory';
import { startTenantsConsumer } from './tenants-consumer';

export const tenantsConfigShape = {
  /** How long a request for a tenant payments has not heard of yet waits for its tenant.created event before answering 503. */
  PAYMENTS_TENANT_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(2_000),
};

/** Payments' read model of tenant configuration: consumes identity's tenant events and answers lookups. */
export async function startTenantReadModel(parts: ServiceParts<ServiceConfig<typeof tenantsConfigShape>>): Promise<TenantDirectory> {
  await startTenantsConsumer({ broker: parts.broker, db: parts.db, logger: parts.logger });
  return new TenantDirectory({ db: parts.db, waitMs: parts.config.PAYMENTS_TENANT_WAIT_MS });
}
