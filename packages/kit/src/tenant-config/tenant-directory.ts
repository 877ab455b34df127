import type { Db } from '../db';
import { AppError } from '../errors';
import { isTransientFailure } from '../dependency-errors';
import { findTenantConfig, type TenantConfig, upsertTenantConfig } from './tenant-config-store';

const POLL_INTERVAL_MS = 50;

export interface TenantDirectoryOptions {
  db: Db;
  /** How long a request for a tenant not heard of yet waits for its event before answering 503. */
  waitMs: number;
  /**
   * Asks identity for a tenant the copy does not hold (a tenant created before this service
   * first listened to identity's events); null when identity does not know it either.
   */
  fetchMissing?: (tenantId: string) => Promise<TenantConfig | null>;
}

/**
 * Tenant configuration for the features that need it. A tenant reaches a service through
 * identity's `tenant.created` event, which lands milliseconds after the tenant is created; a
 * request signed for a tenant not heard of yet waits that long, then answers 503
 * SERVICE_UNAVAILABLE (retry later) rather than 404: the gateway vouched that the tenant
 * exists, only its configuration is late.
 */
export class TenantDirectory {
  constructor(private readonly options: TenantDirectoryOptions) {}

  async require(tenantId: string): Promise<TenantConfig> {
    const stored = await findTenantConfig(this.options.db, tenantId);
    if (stored) return stored;
    if (!this.options.fetchMissing) return this.waitFor(tenantId);
    let fetched: TenantConfig | null;
    try {
      fetched = await this.options.fetchMissing(tenantId);
    } catch (error) {
      // Identity out of reach: the tenant's event may still come.
      if (isTransientFailure(error)) return this.waitFor(tenantId);
      throw error;
    }
    // Identity knows every tenant there is: one it does not know does not exist.
    if (!fetched) throw new AppError('TENANT_NOT_FOUND', 'No such organization');
    // Older than any event: whatever identity publishes from now on replaces it.
    await upsertTenantConfig(this.options.db, fetched, null);
    return (await findTenantConfig(this.options.db, tenantId)) ?? fetched;
  }

  private async waitFor(tenantId: string): Promise<TenantConfig> {
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const config = await findTenantConfig(this.options.db, tenantId);
      if (config) return config;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new AppError('SERVICE_UNAVAILABLE', "The tenant's configuration has not reached this service yet; retry shortly", {
          reason: 'TENANT_CONFIGURATION_PENDING',
        });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_INTERVAL_MS, left)));
    }
  }
}
