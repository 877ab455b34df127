import type { Db } from '@wallet/kit';
import * as store from './tenants-store';

export type { StoredTenant } from './tenants-store';

/* Tenants as the other features of identity read them: through the tenants feature's own store. */

/** The tenant, or null when there is none of this id. */
export function findTenant(db: Db, id: string): Promise<store.StoredTenant | null> {
  return store.findTenant(db, id);
}

/** Newest first, before `beforeSeq` when given; one more row than asked, so the caller knows whether a next page exists. */
export function listTenants(db: Db, page: { beforeSeq?: string | undefined; limit: number }): Promise<store.StoredTenant[]> {
  return store.listTenants(db, page);
}
