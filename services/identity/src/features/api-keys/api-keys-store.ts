import type { ApiKeyRestrictions, AuthMode, Environment, Scope } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';
import type { SealedColumn } from '../secrets/reencrypt';
import type { SealedSecret } from '../secrets/secret-box';
import { signingSecretContext } from './api-key-secrets';

interface ApiKeyRow {
  seq: string;
  id: string;
  tenant_id: string;
  name: string;
  auth_mode: AuthMode;
  environment: Environment;
  scopes: Scope[];
  restrictions: ApiKeyRestrictions;
  key_prefix: string | null;
  last4: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

/** A key as stored; its status depends on the time it is looked at, so the service derives it. */
export interface StoredApiKey {
  seq: string;
  id: string;
  tenantId: string;
  name: string;
  authMode: AuthMode;
  environment: Environment;
  scopes: Scope[];
  restrictions: ApiKeyRestrictions;
  keyPrefix: string | null;
  last4: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface NewApiKey {
  id: string;
  tenantId: string;
  name: string;
  authMode: AuthMode;
  environment: Environment;
  scopes: Scope[];
  restrictions: ApiKeyRestrictions;
  keyPrefix: string | null;
  last4: string | null;
  expiresAt: Date | null;
}

/** A secret key's SHA-256, or an hmac key's sealed signing secret. */
export type NewCredential = { keyId: string; secretHash: string } | { keyId: string; sealed: SealedSecret };

const COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'name',
  'auth_mode',
  'environment',
  'scopes',
  'restrictions',
  'key_prefix',
  'last4',
  'expires_at',
  'revoked_at',
  'created_at',
];
const KEY_COLUMNS = COLUMNS.map((column) => `api_keys.${column}`);

/** Where signing secrets are sealed: the start-up re-encrypts them when the master key changes. */
export const SIGNING_SECRETS_COLUMN: SealedColumn = {
  what: 'API key signing secrets',
  table: 'api_key_credentials',
  idColumn: 'id',
  ciphertextColumn: 'signing_secret_ciphertext',
  masterKeyIdColumn: 'master_key_id',
  ownerColumn: 'key_id',
  contextOf: signingSecretContext,
};

function toStoredApiKey(row: ApiKeyRow): StoredApiKey {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    authMode: row.auth_mode,
    environment: row.environment,
    scopes: row.scopes,
    // jsonb gives keys back in its own order: rebuilt here, so keys compare and print alike everywhere.
    restrictions: {
      requireRequestSigning: row.restrictions.requireRequestSigning,
      requireActorHeaders: row.restrictions.requireActorHeaders,
      allowedIps: row.restrictions.allowedIps ?? null,
    },
    keyPrefix: row.key_prefix,
    last4: row.last4,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}

export async function insertApiKey(tx: Tx, key: NewApiKey): Promise<StoredApiKey> {
  const rows: ApiKeyRow[] = await tx('api_keys')
    .insert({
      id: key.id,
      tenant_id: key.tenantId,
      name: key.name,
      auth_mode: key.authMode,
      environment: key.environment,
      scopes: key.scopes,
      restrictions: JSON.stringify(key.restrictions),
      key_prefix: key.keyPrefix,
      last4: key.last4,
      expires_at: key.expiresAt,
    })
    .returning(COLUMNS);
  return toStoredApiKey(rows[0] as ApiKeyRow);
}

/** The key's new current credential; a current one must have been ended first (one current per key). */
export async function insertCredential(tx: Tx, credential: NewCredential): Promise<void> {
  await tx('api_key_credentials').insert(
    'secretHash' in credential
      ? { key_id: credential.keyId, secret_hash: credential.secretHash }
      : { key_id: credential.keyId, signing_secret_ciphertext: credential.sealed.ciphertext, master_key_id: credential.sealed.masterKeyId },
  );
}

/** The key of this tenant; `forUpdate` serializes changes of one key (two rotations at once). */
export async function findApiKey(
  db: Db | Tx,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredApiKey | null> {
  const query = db('api_keys').where({ tenant_id: tenantId, id }).first(COLUMNS);
  if (options.forUpdate) query.forUpdate();
  const row: ApiKeyRow | undefined = await query;
  return row ? toStoredApiKey(row) : null;
}

/** Any tenant's key: for the gateway's lookups, which know only the key id. */
export async function findApiKeyById(db: Db, id: string): Promise<StoredApiKey | null> {
  const row: ApiKeyRow | undefined = await db('api_keys').where({ id }).first(COLUMNS);
  return row ? toStoredApiKey(row) : null;
}

/** Newest first; one more row than asked, so the caller knows whether a next page exists. */
export async function listApiKeys(
  db: Db,
  filter: { tenantId: string; environment?: Environment | undefined; beforeSeq?: string | undefined; limit: number },
): Promise<StoredApiKey[]> {
  const query = db('api_keys')
    .where({ tenant_id: filter.tenantId })
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1)
    .select(COLUMNS);
  if (filter.environment) query.where('environment', filter.environment);
  if (filter.beforeSeq !== undefined) query.where('seq', '<', filter.beforeSeq);
  const rows: ApiKeyRow[] = await query;
  return rows.map(toStoredApiKey);
}

export async function updateApiKey(
  tx: Tx,
  id: string,
  changes: { name?: string; scopes?: Scope[]; restrictions?: ApiKeyRestrictions; last4?: string; revokedAt?: Date },
): Promise<StoredApiKey> {
  const rows: ApiKeyRow[] = await tx('api_keys')
    .where({ id })
    .update({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.scopes !== undefined ? { scopes: changes.scopes } : {}),
      ...(changes.restrictions !== undefined ? { restrictions: JSON.stringify(changes.restrictions) } : {}),
      ...(changes.last4 !== undefined ? { last4: changes.last4 } : {}),
      ...(changes.revokedAt !== undefined ? { revoked_at: changes.revokedAt } : {}),
      updated_at: tx.fn.now(),
    })
    .returning(COLUMNS);
  return toStoredApiKey(rows[0] as ApiKeyRow);
}

/**
 * Rotation: the current credential, and any earlier one still in its overlap, stop at
 * `validUntil` at the latest. A rotation with no overlap thus ends every older secret at once.
 */
export async function endCredentials(tx: Tx, keyId: string, validUntil: Date): Promise<void> {
  await tx.raw(
    `UPDATE api_key_credentials SET valid_until = LEAST(COALESCE(valid_until, 'infinity'::timestamptz), ?::timestamptz)
     WHERE key_id = ? AND (valid_until IS NULL OR valid_until > ?::timestamptz)`,
    [validUntil, keyId, validUntil],
  );
}

/**
 * Signing secrets that can never verify again are deleted: nothing needs them, and a secret
 * not kept cannot leak. (Secret-key hashes stay, so an old key answers API_KEY_EXPIRED.)
 */
export async function deleteEndedSigningSecrets(tx: Tx, keyId: string, now: Date): Promise<void> {
  await tx('api_key_credentials')
    .where({ key_id: keyId })
    .whereNotNull('signing_secret_ciphertext')
    .where('valid_until', '<=', now)
    .delete();
}

export async function deleteAllSigningSecrets(tx: Tx, keyId: string): Promise<void> {
  await tx('api_key_credentials').where({ key_id: keyId }).whereNotNull('signing_secret_ciphertext').delete();
}

/** The key whose secret has this SHA-256, and when that secret stops working (null: current). */
export async function findBySecretHash(db: Db, secretHash: string): Promise<{ key: StoredApiKey; validUntil: Date | null } | null> {
  const row: (ApiKeyRow & { credential_valid_until: Date | null }) | undefined = await db('api_key_credentials')
    .join('api_keys', 'api_keys.id', 'api_key_credentials.key_id')
    .where('api_key_credentials.secret_hash', secretHash)
    .first([...KEY_COLUMNS, 'api_key_credentials.valid_until as credential_valid_until']);
  return row ? { key: toStoredApiKey(row), validUntil: row.credential_valid_until } : null;
}

/** The signing secrets that verify at `now`: the current one first, then those still in their overlap, newest first. */
export async function verifyingSigningSecrets(
  db: Db,
  keyId: string,
  now: Date,
): Promise<Array<{ sealed: SealedSecret; validUntil: Date | null }>> {
  const rows: Array<{ signing_secret_ciphertext: Buffer; master_key_id: string; valid_until: Date | null }> = await db(
    'api_key_credentials',
  )
    .where({ key_id: keyId })
    .whereNotNull('signing_secret_ciphertext')
    .where((inner) => inner.whereNull('valid_until').orWhere('valid_until', '>', now))
    .orderByRaw('valid_until IS NOT NULL, id DESC')
    .select('signing_secret_ciphertext', 'master_key_id', 'valid_until');
  return rows.map((row) => ({
    sealed: { ciphertext: row.signing_secret_ciphertext, masterKeyId: row.master_key_id },
    validUntil: row.valid_until,
  }));
}
