import BigNumber from 'bignumber.js';
import { type CreateTenantBody, newId, type Tenant, type UpdateOrganizationBody } from '@wallet/contracts';
import { AppError, type Db, enqueueOutbox, type OutboxRelay, type Tx } from '@wallet/kit';
import { tenantCreatedMessage, tenantUpdatedMessage } from './tenant-events';
import { type CheckedTenantConfig, checkTenantConfig } from './tenant-rules';
import { findTenant, findTenantForUpdate, insertTenant, type StoredTenant, updateTenant } from './tenants-store';

/** A tenant as it was before a change and as the change left it. */
export interface TenantChange {
  before: Tenant;
  after: Tenant;
}

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
  async createWith<Extra>(
    body: CreateTenantBody,
    alsoInTransaction: (tx: Tx, tenant: Tenant) => Promise<Extra>,
  ): Promise<{ tenant: Tenant; extra: Extra }> {
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

  /**
   * Applies the fields given on top of the current ones and checks the result as a whole (the
   * default currency stays allowed, the ceiling fits it). The tenant, its `tenant.updated.v1`
   * message and whatever `alsoInTransaction` adds (the audit record) commit together. A change
   * that changes nothing writes nothing and publishes nothing.
   */
  async update(
    id: string,
    body: UpdateOrganizationBody,
    alsoInTransaction: (tx: Tx, change: TenantChange) => Promise<void>,
  ): Promise<Tenant> {
    const result = await this.deps.db.transaction(async (tx) => {
      const current = await findTenantForUpdate(tx, id);
      if (!current) throw new AppError('TENANT_NOT_FOUND', 'No such organization');
      const before = withoutSeq(current);
      const config = checkTenantConfig({
        defaultCurrency: body.config?.defaultCurrency ?? before.config.defaultCurrency,
        allowedCurrencies: body.config?.allowedCurrencies ?? before.config.allowedCurrencies,
        // The stored ceiling is written at the old default currency's scale; its value, not its
        // trailing zeros, is what carries over to a new default currency.
        maxTransactionAmount: body.config?.maxTransactionAmount ?? new BigNumber(before.config.maxTransactionAmount).toFixed(),
      });
      const name = body.name ?? before.name;
      if (!changes(before, name, config)) return { tenant: before, changed: false };
      const { tenant: stored, updatedAt } = await updateTenant(tx, id, { name, ...config });
      const after = withoutSeq(stored);
      await enqueueOutbox(tx, [tenantUpdatedMessage(after, updatedAt)]);
      await alsoInTransaction(tx, { before, after });
      return { tenant: after, changed: true };
    });
    if (result.changed) this.deps.relay.wake();
    return result.tenant;
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

/** Whether the checked values differ from the tenant's; the order of allowed currencies carries no meaning. */
function changes(tenant: Tenant, name: string, config: CheckedTenantConfig): boolean {
  const sorted = (codes: readonly string[]) => [...codes].sort().join(',');
  return (
    name !== tenant.name ||
    config.defaultCurrency !== tenant.config.defaultCurrency ||
    sorted(config.allowedCurrencies) !== sorted(tenant.config.allowedCurrencies) ||
    !new BigNumber(config.maxTransactionAmount).eq(tenant.config.maxTransactionAmount)
  );
}
