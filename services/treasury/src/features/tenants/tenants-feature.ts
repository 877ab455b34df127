import { tenantSchema } from '@wallet/contracts';
import { callInternal, type InternalPeer, type ServiceConfig, type ServiceParts, startTenantConfigReadModel, SYSTEM_CALL_CLAIMS, type TenantConfig, type TenantDirectory, unexpectedAnswer } from '@wallet/kit';
import { z } from 'zod';
import { TREASURY_TOPOLOGY } from '../../topology';
import type { withdrawalsConfigShape } from '../withdrawals/withdrawals-feature';

export const tenantsConfigShape = {
  /** How long a request for a tenant treasury has not heard of yet waits for its tenant.created event before answering 503. */
  TREASURY_TENANT_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(2_000),
};

type TenantsConfig = ServiceConfig<typeof tenantsConfigShape & Pick<typeof withdrawalsConfigShape, 'IDENTITY_URL' | 'TREASURY_IDENTITY_TIMEOUT_MS'>>;

/** A tenant's configuration as identity holds it now (`GET /v1/tenants/{id}`, system token); null for a tenant identity does not know. */
async function fetchFromIdentity(identity: InternalPeer, tenantId: string): Promise<TenantConfig | null> {
  const answer = await callInternal(identity, { method: 'GET', pathWithQuery: `/v1/tenants/${encodeURIComponent(tenantId)}`, claims: SYSTEM_CALL_CLAIMS });
  if (answer.status === 404) return null;
  if (answer.status !== 200) throw unexpectedAnswer(identity.name, answer);
  const tenant = tenantSchema.parse(answer.body);
  return { tenantId: tenant.id, ...tenant.config };
}

/**
 * Treasury's read model of tenant configuration (the transaction ceiling of float deposits and
 * withdrawals), fed by identity's tenant events as payments' is. A tenant created before
 * treasury first listened to them is read from identity once, and its later events win.
 */
export function startTenantReadModel(parts: ServiceParts<TenantsConfig>): Promise<TenantDirectory> {
  const { config, logger } = parts;
  const identity: InternalPeer = { name: 'identity', baseUrl: config.IDENTITY_URL, internalTokenSecret: config.INTERNAL_TOKEN_SECRET, timeoutMs: config.TREASURY_IDENTITY_TIMEOUT_MS, logger };
  return startTenantConfigReadModel(parts, {
    queue: TREASURY_TOPOLOGY.identityEvents.queue,
    waitMs: config.TREASURY_TENANT_WAIT_MS,
    fetchMissing: (tenantId) => fetchFromIdentity(identity, tenantId),
  });
}
