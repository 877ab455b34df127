import { formatAmount, type Tenant } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';

interface TenantRow {
  seq: string;
  id: string;
  name: string;
  slug: string;
  config: { defaultCurrency: string; allowedCurrencies: string[] };
  max_transaction_amount: string;
  created_at: Date;
}

export interface NewTenant {
  id: string;
  name: string;
  slug: string;
  defaultCurrency: string;
  allowedCurrencies: string[];
  maxTransactionAmount: string;
}

/** A tenant as the API shows it, plus its list position. */
export type StoredTenant = Tenant & { seq: string };

const COLUMNS = ['seq', 'id', 'name', 'slug', 'config', 'max_transaction_amount', 'created_at'];

function toTenant(row: TenantRow): StoredTenant {
  const { defaultCurrency, allowedCurrencies } = row.config;
  return {
    seq: row.seq,
    id: row.id,
    name: row.name,
    slug: row.slug,
    config: { defaultCurrency, allowedCurrencies, maxTransactionAmount: formatAmount(row.max_transaction_amount, defaultCurrency) },
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Inserts the tenant unless its slug is taken; returns null then. ON CONFLICT makes a
 * concurrent insert of the same slug wait for the first and then give way, never fail late.
 */
export async function insertTenant(tx: Tx, tenant: NewTenant): Promise<StoredTenant | null> {
  const rows: TenantRow[] = await tx('tenants')
    .insert({
      id: tenant.id,
      name: tenant.name,
      slug: tenant.slug,
      config: JSON.stringify({ defaultCurrency: tenant.defaultCurrency, allowedCurrencies: tenant.allowedCurrencies }),
      max_transaction_amount: tenant.maxTransactionAmount,
    })
    .onConflict('slug')
    .ignore()
    .returning(COLUMNS);
  const row = rows[0];
  return row ? toTenant(row) : null;
}

/** Takes the transaction first: the row stays locked until it ends, so changes apply one after the other. */
export async function findTenantForUpdate(tx: Tx, id: string): Promise<StoredTenant | null> {
  const row: TenantRow | undefined = await tx('tenants').where({ id }).forUpdate().first(COLUMNS);
  return row ? toTenant(row) : null;
}

export interface TenantChanges {
  name: string;
  defaultCurrency: string;
  allowedCurrencies: string[];
  maxTransactionAmount: string;
}

/**
 * Writes the whole changeable state and returns it with the time of the change. The clock is
 * read after the row lock was taken (clock_timestamp, not the transaction's start), so a change
 * that waited for another one is always stamped later than it.
 */
export async function updateTenant(tx: Tx, id: string, changes: TenantChanges): Promise<{ tenant: StoredTenant; updatedAt: string }> {
  const rows: Array<TenantRow & { updated_at: Date }> = await tx('tenants')
    .where({ id })
    .update({
      name: changes.name,
      config: JSON.stringify({ defaultCurrency: changes.defaultCurrency, allowedCurrencies: changes.allowedCurrencies }),
      max_transaction_amount: changes.maxTransactionAmount,
      updated_at: tx.raw('clock_timestamp()'),
    })
    .returning([...COLUMNS, 'updated_at']);
  const row = rows[0];
  if (!row) throw new Error(`tenant ${id} vanished while locked`);
  return { tenant: toTenant(row), updatedAt: row.updated_at.toISOString() };
}

export async function findTenant(db: Db, id: string): Promise<StoredTenant | null> {
  const row: TenantRow | undefined = await db('tenants').where({ id }).first(COLUMNS);
  return row ? toTenant(row) : null;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
export async function listTenants(db: Db, page: { beforeSeq?: string | undefined; limit: number }): Promise<StoredTenant[]> {
  const query = db('tenants')
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .select(COLUMNS);
  if (page.beforeSeq !== undefined) query.where('seq', '<', page.beforeSeq);
  const rows: TenantRow[] = await query;
  return rows.map(toTenant);
}
