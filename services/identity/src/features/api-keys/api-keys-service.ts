import {
  type ApiKey,
  type ApiKeyListQuery,
  type ApiKeyPrincipal,
  type ApiKeyWithSecret,
  type AuthMode,
  type CreateApiKeyBody,
  type Environment,
  newId,
  type Page,
  type RotateApiKeyBody,
  type SigningMaterial,
  type UpdateApiKeyBody,
} from '@wallet/contracts';
import {
  AppError,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  enqueueOutbox,
  type InternalClaims,
  type OutboxRelay,
  type Tx,
} from '@wallet/kit';
import { auditActorFields, recordAuditEvents } from '../audit/audit-trail';
import type { SecretBox } from '../secrets/secret-box';
import { findTenant } from '../tenants/tenant-lookup';
import { apiKeyChangedMessage } from './api-key-events';
import {
  DEFAULT_RESTRICTIONS,
  isVisibleTo,
  type KeyCaller,
  requireCoveredScopes,
  requireCreatableEnvironment,
  resolveRestrictions,
  systemKeyCaller,
} from './api-key-rules';
import { hashSecretKey, newSecretKey, newSigningSecret, secretKeyPrefix, signingSecretContext } from './api-key-secrets';
import {
  deleteAllSigningSecrets,
  deleteEndedSigningSecrets,
  endCredentials,
  findApiKey,
  findApiKeyById,
  findBySecretHash,
  insertApiKey,
  insertCredential,
  listApiKeys,
  type NewCredential,
  type StoredApiKey,
  updateApiKey,
  verifyingSigningSecrets,
} from './api-keys-store';

export interface ApiKeysDeps {
  db: Db;
  relay: OutboxRelay;
  secrets: SecretBox;
}

type KeyStatus = ApiKey['status'];

function statusAt(key: StoredApiKey, now: Date): KeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

function toApiKey(key: StoredApiKey, now: Date): ApiKey {
  return {
    id: key.id,
    tenantId: key.tenantId,
    name: key.name,
    authMode: key.authMode,
    environment: key.environment,
    scopes: key.scopes,
    restrictions: key.restrictions,
    keyPrefix: key.keyPrefix,
    last4: key.last4,
    status: statusAt(key, now),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    createdAt: key.createdAt.toISOString(),
  };
}

function principalOf(key: StoredApiKey, validUntil: Date | null): ApiKeyPrincipal {
  return {
    keyId: key.id,
    tenantId: key.tenantId,
    environment: key.environment,
    authMode: key.authMode,
    scopes: key.scopes,
    restrictions: key.restrictions,
    validUntil: validUntil?.toISOString() ?? null,
  };
}

function earliest(...times: Array<Date | null>): Date | null {
  const set = times.filter((time): time is Date => time !== null);
  return set.length === 0 ? null : new Date(Math.min(...set.map((time) => time.getTime())));
}

/** The refusal for a key that no longer works; the gateway passes these three codes on to its client. */
function refuseUnusable(key: StoredApiKey, now: Date): void {
  const status = statusAt(key, now);
  if (status === 'revoked') throw new AppError('API_KEY_REVOKED', 'This API key was revoked');
  if (status === 'expired') throw new AppError('API_KEY_EXPIRED', 'This API key has expired');
}

/** A new credential for a key: what is stored, and what its caller is shown this once. */
interface IssuedCredential {
  stored: NewCredential;
  shown: { key: string } | { signingSecret: string };
  /** Of a secret key; null for hmac keys, whose secret is never hinted at. */
  last4: string | null;
}

/** What an `api_key.updated` record compares before and after: name, scopes and restrictions. */
function editableFields(key: StoredApiKey) {
  return { name: key.name, scopes: key.scopes, restrictions: key.restrictions };
}

/**
 * A tenant's API keys: secret keys kept only as a SHA-256, hmac signing secrets sealed under
 * the master key; every change audited and announced to the gateways in its own transaction.
 */
export class ApiKeysService {
  constructor(private readonly deps: ApiKeysDeps) {}

  /** The platform operator acting for a tenant, which must exist. */
  async systemCaller(claims: InternalClaims, tenantId: string): Promise<KeyCaller> {
    if (!(await findTenant(this.deps.db, tenantId))) throw new AppError('TENANT_NOT_FOUND', 'No such tenant');
    return systemKeyCaller(claims, tenantId);
  }

  async create(caller: KeyCaller, body: CreateApiKeyBody): Promise<ApiKeyWithSecret> {
    requireCoveredScopes(caller, body.scopes, 'The new key');
    requireCreatableEnvironment(caller, body.environment);
    const restrictions = resolveRestrictions(body.authMode, DEFAULT_RESTRICTIONS, body.restrictions);
    const id = newId('apiKey');
    const now = new Date();
    const issued = this.issueCredential(id, body.authMode, body.environment);

    const stored = await this.deps.db.transaction(async (tx) => {
      const key = await insertApiKey(tx, {
        id,
        tenantId: caller.tenantId,
        name: body.name,
        authMode: body.authMode,
        environment: body.environment,
        scopes: [...new Set(body.scopes)],
        restrictions,
        keyPrefix: body.authMode === 'secret' ? secretKeyPrefix(body.environment) : null,
        last4: issued.last4,
        expiresAt: body.expiresInSeconds !== undefined ? new Date(now.getTime() + body.expiresInSeconds * 1000) : null,
      });
      await insertCredential(tx, issued.stored);
      await this.audit(tx, caller, key, 'api_key.created', {
        name: key.name,
        authMode: key.authMode,
        environment: key.environment,
        scopes: key.scopes,
        restrictions: key.restrictions,
        expiresAt: key.expiresAt?.toISOString() ?? null,
      });
      return key;
    });
    return { ...toApiKey(stored, now), ...issued.shown };
  }

  async list(caller: KeyCaller, query: ApiKeyListQuery): Promise<Page<ApiKey>> {
    // Read first: a cursor no list issued is refused whatever else the query says.
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    // A key caller asking for the other environment asks for keys it may not see: there are none.
    if (caller.environment !== null && query.environment !== undefined && query.environment !== caller.environment)
      return { data: [], nextCursor: null };
    const rows = await listApiKeys(this.deps.db, {
      tenantId: caller.tenantId,
      environment: caller.environment ?? query.environment,
      beforeSeq: position?.seq,
      limit: query.limit,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const now = new Date();
    return {
      data: page.map((key) => toApiKey(key, now)),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null,
    };
  }

  async get(caller: KeyCaller, id: string): Promise<ApiKey> {
    const key = await findApiKey(this.deps.db, caller.tenantId, id);
    if (!key || !isVisibleTo(caller, key)) throw new AppError('API_KEY_NOT_FOUND', 'No such API key');
    return toApiKey(key, new Date());
  }

  async update(caller: KeyCaller, id: string, body: UpdateApiKeyBody): Promise<ApiKey> {
    const now = new Date();
    const { key, changed } = await this.deps.db.transaction(async (tx) => {
      const current = await this.lockForChange(tx, caller, id, now, 'changed');
      if (body.scopes) requireCoveredScopes(caller, body.scopes, 'The changed key');
      const restrictions = resolveRestrictions(current.authMode, current.restrictions, body.restrictions);
      const before = editableFields(current);
      const after = { name: body.name ?? current.name, scopes: body.scopes ? [...new Set(body.scopes)] : current.scopes, restrictions };
      if (JSON.stringify(before) === JSON.stringify(after)) return { key: current, changed: false };
      const updated = await updateApiKey(tx, current.id, after);
      await this.audit(tx, caller, updated, 'api_key.updated', { before, after: editableFields(updated) });
      await enqueueOutbox(tx, [apiKeyChangedMessage(updated, 'updated', now)]);
      return { key: updated, changed: true };
    });
    if (changed) this.deps.relay.wake();
    return toApiKey(key, now);
  }

  async rotate(caller: KeyCaller, id: string, body: RotateApiKeyBody): Promise<ApiKeyWithSecret> {
    const now = new Date();
    const previousValidUntil = new Date(now.getTime() + body.expiresInSeconds * 1000);
    const result = await this.deps.db.transaction(async (tx) => {
      const current = await this.lockForChange(tx, caller, id, now, 'rotated');
      await endCredentials(tx, current.id, previousValidUntil);
      await deleteEndedSigningSecrets(tx, current.id, now);
      const issued = this.issueCredential(current.id, current.authMode, current.environment);
      await insertCredential(tx, issued.stored);
      const rotated = await updateApiKey(tx, current.id, issued.last4 !== null ? { last4: issued.last4 } : {});
      await this.audit(tx, caller, rotated, 'api_key.rotated', {
        expiresInSeconds: body.expiresInSeconds,
        previousValidUntil: previousValidUntil.toISOString(),
      });
      await enqueueOutbox(tx, [apiKeyChangedMessage(rotated, 'rotated', now)]);
      return { ...toApiKey(rotated, now), ...issued.shown };
    });
    this.deps.relay.wake();
    return result;
  }

  /** Immediate and final. Revoking a revoked key changes nothing and answers the key as it is. */
  async revoke(caller: KeyCaller, id: string): Promise<ApiKey> {
    const now = new Date();
    const { key, changed } = await this.deps.db.transaction(async (tx) => {
      const current = await this.lockVisible(tx, caller, id);
      if (current.revokedAt) return { key: current, changed: false };
      const revoked = await updateApiKey(tx, current.id, { revokedAt: now });
      // A revoked key never verifies again, so its signing secrets are of no use to anyone.
      await deleteAllSigningSecrets(tx, current.id);
      await this.audit(tx, caller, revoked, 'api_key.revoked', {});
      await enqueueOutbox(tx, [apiKeyChangedMessage(revoked, 'revoked', now)]);
      return { key: revoked, changed: true };
    });
    if (changed) this.deps.relay.wake();
    return toApiKey(key, now);
  }

  /** The gateway's `X-API-Key` lookup. */
  async authenticateSecret(secret: string): Promise<ApiKeyPrincipal> {
    const found = await findBySecretHash(this.deps.db, hashSecretKey(secret));
    if (!found || found.key.authMode !== 'secret') throw new AppError('INVALID_API_KEY', 'Unknown API key');
    const now = new Date();
    refuseUnusable(found.key, now);
    if (found.validUntil && found.validUntil.getTime() <= now.getTime()) {
      throw new AppError('API_KEY_EXPIRED', 'This secret was replaced by a rotation and no longer works');
    }
    return principalOf(found.key, earliest(found.key.expiresAt, found.validUntil));
  }

  /** The gateway's signed-request lookup: the principal and every signing secret that verifies now, decrypted. */
  async signingMaterial(keyId: string): Promise<SigningMaterial> {
    const key = await findApiKeyById(this.deps.db, keyId);
    if (!key || key.authMode !== 'hmac') throw new AppError('INVALID_API_KEY', 'Unknown API key');
    const now = new Date();
    refuseUnusable(key, now);
    const sealed = await verifyingSigningSecrets(this.deps.db, key.id, now);
    // An active hmac key always has a current secret; none means the data is broken, not the client's key.
    if (sealed.length === 0) throw new Error(`active hmac key ${key.id} has no signing secret`);
    return {
      principal: principalOf(key, key.expiresAt),
      signingSecrets: sealed.map((entry) => ({
        secret: this.deps.secrets.open(entry.sealed, signingSecretContext(key.id)),
        validUntil: entry.validUntil?.toISOString() ?? null,
      })),
    };
  }

  private issueCredential(keyId: string, authMode: AuthMode, environment: Environment): IssuedCredential {
    if (authMode === 'secret') {
      const secret = newSecretKey(environment);
      return { stored: { keyId, secretHash: secret.hash }, shown: { key: secret.key }, last4: secret.last4 };
    }
    const signingSecret = newSigningSecret(environment);
    return {
      stored: { keyId, sealed: this.deps.secrets.seal(signingSecret, signingSecretContext(keyId)) },
      shown: { signingSecret },
      last4: null,
    };
  }

  /** The key, locked; another tenant's (or, for a key caller, another environment's) is not found. */
  private async lockVisible(tx: Tx, caller: KeyCaller, id: string): Promise<StoredApiKey> {
    const key = await findApiKey(tx, caller.tenantId, id, { forUpdate: true });
    if (!key || !isVisibleTo(caller, key)) throw new AppError('API_KEY_NOT_FOUND', 'No such API key');
    // A weaker key must not take over a stronger one (rotating it hands out its new secret).
    requireCoveredScopes(caller, key.scopes, 'This key');
    return key;
  }

  /** As lockVisible, for rotations and edits, which only make sense on a key that still works. */
  private async lockForChange(tx: Tx, caller: KeyCaller, id: string, now: Date, verb: string): Promise<StoredApiKey> {
    const key = await this.lockVisible(tx, caller, id);
    const status = statusAt(key, now);
    if (status !== 'active') throw new AppError('VALIDATION_ERROR', `This API key is ${status}: it cannot be ${verb}`, { status });
    return key;
  }

  private async audit(tx: Tx, caller: KeyCaller, key: StoredApiKey, action: string, metadata: Record<string, unknown>): Promise<void> {
    const actor = auditActorFields(caller.claims);
    await recordAuditEvents(tx, [
      {
        tenantId: key.tenantId,
        // Keys are tenant-wide records: the trail shows them from both environments.
        environment: null,
        action,
        actorType: actor.actorType,
        actorId: actor.actorId,
        targetType: 'api_key',
        targetId: key.id,
        metadata: { ...actor.metadata, ...metadata },
      },
    ]);
  }
}
