import { AppError, type Db } from '@wallet/kit';
import { findTenantConfig, type TenantConfig } from './tenants-store';

const POLL_INTERVAL_MS = 50;

/**
 * Tenant configuration for the features that need it. A tenant reaches payments through
 * identity's `tenant.created` event, which lands milliseconds after the tenant is created; a
 * request signed for a tenant payments has not heard of yet waits that long, then answers
 * 503 SERVICE_UNAVAILABLE (retry later) rather than 404: the gateway vouched that the tenant
 * exists, only its configuration is late.
 */
export class TenantDirectory {
  constructor(private readonly deps: { db: Db; waitMs: number }) {}

  async require(tenantId: string): Promise<TenantConfig> {
    const deadline = Date.now() + this.deps.waitMs;
    for (;;) {
      const config = await findTenantConfig(this.deps.db, tenantId);
      if (config) return config;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new AppError('SERVICE_UNAVAILABLE', "The tenant's configuration has not reached payments yet; retry shortly", { reason: 'TENANT_CONFIGURATION_PENDING' });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_INTERVAL_MS, left)));
    }
  }
}
