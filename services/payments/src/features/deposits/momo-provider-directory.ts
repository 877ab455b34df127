import { randomUUID } from 'node:crypto';
import { type MomoProviderSecrets, momoProviderSecretsSchema } from '@wallet/contracts';
import { AppError, currentContext, INTERNAL_TOKEN_HEADER, type Logger, signInternalToken } from '@wallet/kit';

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

  constructor(private readonly options: { identityUrl: string; internalTokenSecret: string; timeoutMs: number; ttlMs: number; logger: Logger; maxTenants?: number }) {}

  async providersOf(tenantId: string, options: { fresh?: boolean } = {}): Promise<ProvidersOfTenant> {
    const cached = this.cache.get(tenantId);
    if (!options.fresh && cached && cached.expiresAt > Date.now()) return { providers: cached.providers, fresh: false };
    const providers = await this.fetch(tenantId);
    if (this.cache.size >= (this.options.maxTenants ?? 10_000)) this.cache.clear();
    this.cache.set(tenantId, { providers, expiresAt: Date.now() + this.options.ttlMs });
    return { providers, fresh: true };
  }

  private async fetch(tenantId: string): Promise<TenantMomoProvider[]> {
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const token = signInternalToken(this.options.internalTokenSecret, { surface: 'system', tenantId: null, environment: null, keyId: null, scopes: [], actor: null });
    const url = `${this.options.identityUrl.replace(/\/+$/, '')}/internal/v1/tenants/${encodeURIComponent(tenantId)}/momo-providers`;
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, { headers: { [INTERNAL_TOKEN_HEADER]: token, 'x-correlation-id': correlationId }, signal: AbortSignal.timeout(this.options.timeoutMs) });
      status = response.status;
      text = await response.text();
    } catch (error) {
      this.options.logger.warn({ err: error, tenantId }, 'identity unreachable for momo providers');
      throw unavailable();
    }
    if (status !== 200) {
      this.options.logger.warn({ status, tenantId }, 'identity refused the momo provider lookup');
      throw unavailable();
    }
    const parsed = momoProviderSecretsSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`identity answered momo providers in an unexpected shape: ${parsed.error.message}`);
    return parsed.data.data;
  }
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'Mobile money providers cannot be read right now; retry shortly', { dependency: 'identity' });
}
