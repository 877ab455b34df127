import type { Db, Tx } from '@wallet/kit';
import type { SealedColumn } from '../secrets/reencrypt';
import type { SealedSecret } from '../secrets/secret-box';
import { webhookSecretContext } from './momo-provider-secrets';

interface ProviderRow {
  seq: string;
  id: string;
  tenant_id: string;
  provider_code: string;
  name: string;
  created_at: Date;
  secret_created_at: Date;
}

export interface StoredProvider {
  seq: string;
  id: string;
  tenantId: string;
  providerCode: string;
  name: string;
  createdAt: Date;
  /** When the current webhook secret was issued. */
  secretCreatedAt: Date;
}

/** Where webhook secrets are sealed: the start-up re-encrypts them when the master key changes. */
export const WEBHOOK_SECRETS_COLUMN: SealedColumn = {
  what: 'mobile money webhook secrets',
  table: 'momo_provider_secrets',
  idColumn: 'id',
  ciphertextColumn: 'ciphertext',
  masterKeyIdColumn: 'master_key_id',
  ownerColumn: 'provider_id',
  contextOf: webhookSecretContext,
};

function toProvider(row: ProviderRow): StoredProvider {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    providerCode: row.provider_code,
    name: row.name,
    createdAt: row.created_at,
    secretCreatedAt: row.secret_created_at,
  };
}

/** Providers with the issue time of their current secret. */
function providers(db: Db | Tx) {
  return db('momo_providers as p')
    .join('momo_provider_secrets as s', (join) => join.on('s.provider_id', 'p.id').andOnNull('s.valid_until'))
    .select('p.seq', 'p.id', 'p.tenant_id', 'p.provider_code', 'p.name', 'p.created_at', 's.created_at as secret_created_at');
}

/**
 * Inserts the provider with its first secret unless the tenant already has this code; returns
 * null then. ON CONFLICT makes a concurrent insert of the same code wait and give way.
 */
export async function insertProvider(
  tx: Tx,
  provider: { id: string; tenantId: string; providerCode: string; name: string },
  sealed: SealedSecret,
): Promise<StoredProvider | null> {
  const inserted: Array<{ id: string }> = await tx('momo_providers')
    .insert({ id: provider.id, tenant_id: provider.tenantId, provider_code: provider.providerCode, name: provider.name })
    .onConflict(['tenant_id', 'provider_code'])
    .ignore()
    .returning(['id']);
  if (inserted.length === 0) return null;
  await insertSecret(tx, provider.id, sealed);
  const row: ProviderRow | undefined = await providers(tx).where('p.id', provider.id).first();
  return row ? toProvider(row) : null;
}

export async function insertSecret(tx: Tx, providerId: string, sealed: SealedSecret): Promise<void> {
  await tx('momo_provider_secrets').insert({ provider_id: providerId, ciphertext: sealed.ciphertext, master_key_id: sealed.masterKeyId });
}

export async function findProvider(
  db: Db | Tx,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredProvider | null> {
  const query = providers(db).where({ 'p.tenant_id': tenantId, 'p.id': id }).first();
  if (options.forUpdate) query.forUpdate('p');
  const row: ProviderRow | undefined = await query;
  return row ? toProvider(row) : null;
}

/** Newest first; one more row than asked, so the caller knows whether a next page exists. */
export async function listProviders(
  db: Db,
  filter: { tenantId: string; beforeSeq?: string | undefined; limit: number },
): Promise<StoredProvider[]> {
  const query = providers(db)
    .where('p.tenant_id', filter.tenantId)
    .orderBy('p.seq', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeSeq !== undefined) query.where('p.seq', '<', filter.beforeSeq);
  const rows: ProviderRow[] = await query;
  return rows.map(toProvider);
}

/**
 * Rotation: the current secret, and any earlier one still in its overlap, stop at `validUntil`
 * at the latest; secrets that can never verify again are deleted, since nothing needs them.
 */
export async function endSecrets(tx: Tx, providerId: string, validUntil: Date, now: Date): Promise<void> {
  await tx.raw(
    `UPDATE momo_provider_secrets SET valid_until = LEAST(COALESCE(valid_until, 'infinity'::timestamptz), ?::timestamptz)
     WHERE provider_id = ? AND (valid_until IS NULL OR valid_until > ?::timestamptz)`,
    [validUntil, providerId, validUntil],
  );
  await tx('momo_provider_secrets').where({ provider_id: providerId }).where('valid_until', '<=', now).delete();
}

/** Every provider of the tenant with the secrets that verify at `now`, current first. */
export async function verifyingSecretsOfTenant(
  db: Db,
  tenantId: string,
  now: Date,
): Promise<Array<{ provider: StoredProvider; secrets: Array<{ sealed: SealedSecret; validUntil: Date | null }> }>> {
  const rows: ProviderRow[] = await providers(db).where('p.tenant_id', tenantId).orderBy('p.seq', 'asc');
  const secretRows: Array<{ provider_id: string; ciphertext: Buffer; master_key_id: string; valid_until: Date | null }> = await db(
    'momo_provider_secrets as s',
  )
    .join('momo_providers as p', 'p.id', 's.provider_id')
    .where('p.tenant_id', tenantId)
    .where((inner) => inner.whereNull('s.valid_until').orWhere('s.valid_until', '>', now))
    .orderByRaw('s.valid_until IS NOT NULL, s.id DESC')
    .select('s.provider_id', 's.ciphertext', 's.master_key_id', 's.valid_until');
  return rows.map((row) => ({
    provider: toProvider(row),
    secrets: secretRows
      .filter((secret) => secret.provider_id === row.id)
      .map((secret) => ({ sealed: { ciphertext: secret.ciphertext, masterKeyId: secret.master_key_id }, validUntil: secret.valid_until })),
  }));
}
