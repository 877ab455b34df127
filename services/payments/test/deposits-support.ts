import { randomBytes } from 'node:crypto';
import type { OrgRole } from '@wallet/contracts';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import { start as startIdentityService } from '../../identity/src/main';
import { INTERNAL_SECRET, internalToken, tenantToken } from './support';

/** The real identity service, in-process on its own database and vhost: it owns the tenants' mobile money providers. */
export interface IdentityPeer {
  url: string;
  /** Creates a tenant in identity (providers belong to one); answers its id. */
  createTenant(config: { allowedCurrencies: string[]; maxTransactionAmount: string }): Promise<string>;
  /** Registers a provider for the tenant; answers its webhook secret (shown once). */
  createProvider(tenantId: string, providerCode: string): Promise<{ id: string; webhookSecret: string }>;
  /** Issues a new webhook secret (the old one stops verifying at once); answers it. */
  rotateSecret(tenantId: string, providerCode: string): Promise<string>;
  /** Adds an active team member of the role to the tenant; answers its id. */
  addMember(tenantId: string, orgRole: OrgRole): Promise<string>;
  deactivateMember(tenantId: string, memberId: string): Promise<void>;
  close(): Promise<void>;
}

async function call(
  url: string,
  method: string,
  path: string,
  tenantId: string | null,
  body?: unknown,
  scope = 'providers:manage',
): Promise<any> {
  const token = tenantId === null ? internalToken() : tenantToken(tenantId, { scopes: [scope] });
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-internal-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`identity ${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

export async function startIdentity(): Promise<IdentityPeer> {
  const service = await startIdentityService({
    ...process.env,
    IDENTITY_DATABASE_URL: await createTestDatabase('payments_identity', { migratedFor: 'identity' }),
    AMQP_URL: await createTestVhost('payments_identity'),
    IDENTITY_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    SECRETS_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const url = `http://127.0.0.1:${service.port}`;
  const ids = new Map<string, string>();
  return {
    url,
    async createTenant(config) {
      const slug = `dep-${randomBytes(6).toString('hex')}`;
      const created = await call(url, 'POST', '/v1/tenants', null, {
        name: slug,
        slug,
        config: { defaultCurrency: config.allowedCurrencies[0], ...config },
      });
      return created.id as string;
    },
    async createProvider(tenantId, providerCode) {
      const created = await call(url, 'POST', '/v1/admin/momo-providers', tenantId, { providerCode, name: providerCode.toUpperCase() });
      ids.set(`${tenantId}/${providerCode}`, created.id);
      return { id: created.id, webhookSecret: created.webhookSecret };
    },
    async rotateSecret(tenantId, providerCode) {
      const id = ids.get(`${tenantId}/${providerCode}`);
      const rotated = await call(url, 'POST', `/v1/admin/momo-providers/${id}/rotate-secret`, tenantId, { expiresInSeconds: 0 });
      return rotated.webhookSecret as string;
    },
    async addMember(tenantId, orgRole) {
      const body = {
        name: orgRole,
        email: `${orgRole}-${randomBytes(4).toString('hex')}@example.com`,
        password: 'correct-horse-battery-9',
        orgRole,
      };
      return (await call(url, 'POST', '/v1/team', tenantId, body, 'tenant:manage')).id as string;
    },
    async deactivateMember(tenantId, memberId) {
      await call(url, 'PATCH', `/v1/team/${memberId}`, tenantId, { status: 'deactivated' }, 'tenant:manage');
    },
    close: () => service.close(),
  };
}
