import { type MomoProviderSecrets, momoProviderSecretsSchema } from '@wallet/contracts';
import { AppError, callInternal, type InternalPeer, type Logger, SYSTEM_CALL_CLAIMS } from '@wallet/kit';

const UNAVAILABLE = 'Mobile money providers cannot be read right now; retry shortly';

export type TenantMomoProvider = MomoProviderSecrets['data'][number];

export interface ProvidersOfTenant {
  providers: TenantMomoProvider[];
  /** True when this answer was fetched from identity for this call (not from the cache). */
  fresh: boolean;
}

interface CacheEntry {
  providers: TenantMomoProvider[];
  expiresAt: number;
}

/**
 * A tenant's mobile money providers and their webhook secrets, from identity
 * (`GET /internal/v1/tenants/{tenantId}/momo-providers`, system token), cached per tenant for
 * a short time. A caller that meets a signature mismatch asks again with `fresh` (a rotated secret).
 */
export class MomoProviderDirectory {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly identity: InternalPeer;

  constructor(
    private readonly options: {
      identityUrl: string;
      internalTokenSecret: string;
      timeoutMs: number;
      ttlMs: number;
      logger: Logger;
      maxTenants?: number;
    },
  ) {
    this.identity = {
      name: 'identity',
      baseUrl: options.identityUrl,
      internalTokenSecret: options.internalTokenSecret,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
      unavailableMessage: UNAVAILABLE,
    };
  }

  async providersOf(tenantId: string, options: { fresh?: boolean } = {}): Promise<ProvidersOfTenant> {
    const cached = this.cache.get(tenantId);
    if (!options.fresh && cached && cached.expiresAt > Date.now()) return { providers: cached.providers, fresh: false };
    const providers = await this.fetch(tenantId);
    if (this.cache.size >= (this.options.maxTenants ?? 10_000)) this.cache.clear();
    this.cache.set(tenantId, { providers, expiresAt: Date.now() + this.options.ttlMs });
    return { providers, fresh: true };
  }

  private async fetch(tenantId: string): Promise<TenantMomoProvider[]> {
    const answer = await callInternal(this.identity, {
      method: 'GET',
      pathWithQuery: `/internal/v1/tenants/${encodeURIComponent(tenantId)}/momo-providers`,
      claims: SYSTEM_CALL_CLAIMS,
    });
    if (answer.status !== 200) {
      this.options.logger.warn({ status: answer.status, tenantId }, 'identity refused the momo provider lookup');
      throw new AppError('SERVICE_UNAVAILABLE', UNAVAILABLE, { dependency: 'identity' });
    }
    const parsed = momoProviderSecretsSchema.safeParse(answer.body);
    if (!parsed.success) throw new Error(`identity answered momo providers in an unexpected shape: ${parsed.error.message}`);
    return parsed.data.data;
  }
}
