import { type CreateTenantBody, newId, type Tenant } from '@wallet/contracts';
import { AppError, type Db, enqueueOutbox, type OutboxRelay, type Tx } from '@wallet/kit';
import { tenantCreatedMessage } from './tenant-events';
import { checkTenantConfig } from './tenant-rules';
import { findTenant, insertTenant, type StoredTenant } from './tenants-store';

export class TenantsService {
  constructor(private readonly deps: { db: Db; relay: OutboxRelay }) {}

  async create(body: CreateTenantBody): Promise<Tenant> {
    const { tenant } = await this.createWith(body, async () => null);
    return tenant;
  }

  /**
   * Writes the tenant, its `tenant.created.v1` message and whatever `alsoInTransaction` adds
   * (an organization's admin) in one transaction: all of it commits, or none of it does.
   */
  async createWith<Extra>(body: CreateTenantBody, alsoInTransaction: (tx: Tx, tenant: Tenant) => Promise<Extra>): Promise<{ tenant: Tenant; extra: Extra }> {
    const config = checkTenantConfig(body.config);
    const result = await this.deps.db.transaction(async (tx) => {
      const stored = await insertTenant(tx, { id: newId('tenant'), name: body.name, slug: body.slug, ...config });
      if (!stored) throw new AppError('SLUG_TAKEN', `The slug "${body.slug}" is already taken`, { slug: body.slug });
      const tenant = withoutSeq(stored);
      await enqueueOutbox(tx, [tenantCreatedMessage(tenant)]);
      return { tenant, extra: await alsoInTransaction(tx, tenant) };
    });
    this.deps.relay.wake();
    return result;
  }

  async get(id: string): Promise<Tenant> {
    const stored = await findTenant(this.deps.db, id);
    if (!stored) throw new AppError('TENANT_NOT_FOUND', 'No such tenant');
    return withoutSeq(stored);
  }
}

export function withoutSeq({ seq: _seq, ...tenant }: StoredTenant): Tenant {
  return tenant;
}
