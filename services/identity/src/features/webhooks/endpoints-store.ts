import { randomBytes } from 'node:crypto';
import type { Environment, WebhookEndpoint } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';
import type { SealedColumn } from '../secrets/reencrypt';
import type { SealedSecret } from '../secrets/secret-box';

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64, as its libraries read it. */
export function newEndpointSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Associated data of an endpoint's sealed secrets: a ciphertext moved to another endpoint's row does not open. */
export function endpointSecretContext(endpointId: string): string {
  return `webhook_endpoint.secret:${endpointId}`;
}

/** Where endpoint secrets are sealed: the start-up re-encrypts them when the master key changes. */
export const ENDPOINT_SECRETS_COLUMN: SealedColumn = {
  what: 'webhook endpoint secrets',
  table: 'webhook_endpoint_secrets',
  idColumn: 'id',
  ciphertextColumn: 'ciphertext',
  masterKeyIdColumn: 'master_key_id',
  ownerColumn: 'endpoint_id',
  contextOf: endpointSecretContext,
};

export interface EndpointScope {
  tenantId: string;
  environment: Environment;
}

interface EndpointRow {
  seq: string;
  id: string;
  environment: Environment;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: 'failing' | 'gone' | null;
  created_at: Date;
  updated_at: Date;
  previous_secret_expires_at: Date | null;
}

/** Endpoints with when their previous secret stops signing (the latest end of a secret still valid). */
function endpoints(db: Db | Tx) {
  return db('webhook_endpoints as e').select(
    'e.seq',
    'e.id',
    'e.environment',
    'e.url',
    'e.description',
    'e.event_types',
    'e.enabled',
    'e.disabled_reason',
    'e.created_at',
    'e.updated_at',
    db.raw(
      `(SELECT max(s.valid_until) FROM webhook_endpoint_secrets s
         WHERE s.endpoint_id = e.id AND s.valid_until > now()) AS previous_secret_expires_at`,
    ),
  );
}

function toEndpoint(row: EndpointRow): WebhookEndpoint & { seq: string } {
  return {
    seq: row.seq,
    id: row.id,
    environment: row.environment,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type StoredEndpoint = ReturnType<typeof toEndpoint>;

export async function insertEndpoint(
  tx: Tx,
  scope: EndpointScope,
  endpoint: { id: string; url: string; description: string | null; eventTypes: readonly string[] },
  sealed: SealedSecret,
): Promise<StoredEndpoint> {
  await tx('webhook_endpoints').insert({
    id: endpoint.id,
    tenant_id: scope.tenantId,
    environment: scope.environment,
    url: endpoint.url,
    description: endpoint.description,
    event_types: [...endpoint.eventTypes],
  });
  await insertSecret(tx, endpoint.id, sealed);
  return (await findEndpoint(tx, scope, endpoint.id)) as StoredEndpoint;
}

export async function insertSecret(tx: Tx, endpointId: string, sealed: SealedSecret): Promise<void> {
  await tx('webhook_endpoint_secrets').insert({
    endpoint_id: endpointId,
    ciphertext: sealed.ciphertext,
    master_key_id: sealed.masterKeyId,
  });
}

export async function findEndpoint(
  db: Db | Tx,
  scope: EndpointScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredEndpoint | null> {
  const query = endpoints(db).where({ 'e.tenant_id': scope.tenantId, 'e.environment': scope.environment, 'e.id': id }).first();
  if (options.forUpdate) query.forUpdate();
  const row: EndpointRow | undefined = await query;
  return row ? toEndpoint(row) : null;
}

/** Newest first; one more row than asked, so the caller knows whether a next page exists. */
export async function listEndpoints(
  db: Db,
  scope: EndpointScope,
  filter: { beforeSeq?: string | undefined; limit: number },
): Promise<StoredEndpoint[]> {
  const query = endpoints(db)
    .where({ 'e.tenant_id': scope.tenantId, 'e.environment': scope.environment })
    .orderBy('e.seq', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeSeq !== undefined) query.where('e.seq', '<', filter.beforeSeq);
  const rows: EndpointRow[] = await query;
  return rows.map(toEndpoint);
}

export async function updateEndpoint(tx: Tx, id: string, changes: Record<string, unknown>): Promise<void> {
  await tx('webhook_endpoints')
    .where({ id })
    .update({ ...changes, updated_at: tx.fn.now() });
}

export async function deleteEndpoint(tx: Tx, id: string): Promise<void> {
  await tx('webhook_endpoints').where({ id }).delete();
}

/** Rotation: the secrets still signing stop at `validUntil` at the latest; those that never sign again are deleted. */
export async function endSecrets(tx: Tx, endpointId: string, validUntil: Date): Promise<void> {
  await tx.raw(
    `UPDATE webhook_endpoint_secrets SET valid_until = LEAST(COALESCE(valid_until, 'infinity'::timestamptz), ?::timestamptz)
     WHERE endpoint_id = ? AND (valid_until IS NULL OR valid_until > ?::timestamptz)`,
    [validUntil, endpointId, validUntil],
  );
  await tx('webhook_endpoint_secrets').where({ endpoint_id: endpointId }).where('valid_until', '<=', tx.fn.now()).delete();
}

/** The secrets that sign deliveries to each endpoint now, current first. */
export async function signingSecrets(db: Db | Tx, endpointIds: readonly string[]): Promise<Map<string, SealedSecret[]>> {
  const rows: Array<{ endpoint_id: string; ciphertext: Buffer; master_key_id: string }> = await db('webhook_endpoint_secrets')
    .whereIn('endpoint_id', [...new Set(endpointIds)])
    .where((inner) => inner.whereNull('valid_until').orWhere('valid_until', '>', db.fn.now()))
    .orderByRaw('valid_until IS NOT NULL, id DESC')
    .select('endpoint_id', 'ciphertext', 'master_key_id');
  const byEndpoint = new Map<string, SealedSecret[]>();
  for (const row of rows) {
    const sealed = { ciphertext: row.ciphertext, masterKeyId: row.master_key_id };
    byEndpoint.set(row.endpoint_id, [...(byEndpoint.get(row.endpoint_id) ?? []), sealed]);
  }
  return byEndpoint;
}
