import {
  type InternalPeer,
  type ServiceConfig,
  type ServiceParts,
  startTenantConfigReadModel,
  tenantConfigFromIdentity,
  type TenantDirectory,
} from '@wallet/kit';
import { z } from 'zod';
import { TREASURY_TOPOLOGY } from '../../topology';
import type { peersConfigShape } from '../../peers';

export const tenantsConfigShape = {
  /** How long a request for a tenant treasury has not heard of yet waits for its tenant.created event before answering 503. */
  TREASURY_TENANT_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(2_000),
};

type TenantsConfig = ServiceConfig<
  typeof tenantsConfigShape & Pick<typeof peersConfigShape, 'IDENTITY_URL' | 'TREASURY_IDENTITY_TIMEOUT_MS'>
>;

/**
 * Treasury's read model of tenant configuration (the transaction ceiling of float deposits and
 * withdrawals), fed by identity's tenant events as payments' is. A tenant created before
 * treasury first listened to them is read from identity once, and its later events win.
 */
export function startTenantReadModel(parts: ServiceParts<TenantsConfig>): Promise<TenantDirectory> {
  const { config, logger } = parts;
  const identity: InternalPeer = {
    name: 'identity',
    baseUrl: config.IDENTITY_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.TREASURY_IDENTITY_TIMEOUT_MS,
    logger,
  };
  return startTenantConfigReadModel(parts, {
    queue: TREASURY_TOPOLOGY.identityEvents.queue,
    waitMs: config.TREASURY_TENANT_WAIT_MS,
    fetchMissing: tenantConfigFromIdentity(identity),
  });
}
