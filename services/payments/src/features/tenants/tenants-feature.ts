import {
  type InternalPeer,
  type ServiceConfig,
  type ServiceParts,
  startTenantConfigReadModel,
  tenantConfigFromIdentity,
  type TenantDirectory,
} from '@wallet/kit';
import { z } from 'zod';
import { PAYMENTS_TOPOLOGY } from '../../topology';
import type { peersConfigShape } from '../../peers';

export const tenantsConfigShape = {
  /** How long a request for a tenant payments has not heard of yet waits for its tenant.created event before answering 503. */
  PAYMENTS_TENANT_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(2_000),
};

type TenantsConfig = ServiceConfig<
  typeof tenantsConfigShape & Pick<typeof peersConfigShape, 'IDENTITY_URL' | 'PAYMENTS_IDENTITY_TIMEOUT_MS'>
>;

/**
 * Payments' read model of tenant configuration: consumes identity's tenant events and answers
 * lookups. A tenant it has not heard of is asked of identity once (404 when identity does not
 * know it either: the operator named a tenant that does not exist).
 */
export function startTenantReadModel(parts: ServiceParts<TenantsConfig>): Promise<TenantDirectory> {
  const { config, logger } = parts;
  const identity: InternalPeer = {
    name: 'identity',
    baseUrl: config.IDENTITY_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.PAYMENTS_IDENTITY_TIMEOUT_MS,
    logger,
  };
  return startTenantConfigReadModel(parts, {
    queue: PAYMENTS_TOPOLOGY.identityEvents.queue,
    waitMs: config.PAYMENTS_TENANT_WAIT_MS,
    fetchMissing: tenantConfigFromIdentity(identity),
  });
}
