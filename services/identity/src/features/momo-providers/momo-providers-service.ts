import {
  type CreateMomoProviderBody,
  type MomoProvider,
  type MomoProviderSecrets,
  type MomoProviderWithSecret,
  newId,
  type Page,
  type PageQuery,
  type RotateMomoProviderSecretBody,
} from '@wallet/contracts';
import { AppError, cursorFields, type Db, decodeCursor, encodeCursor, type InternalClaims, type Tx } from '@wallet/kit';
import { auditActorFields, recordAuditEvents } from '../audit/audit-trail';
import type { SecretBox } from '../secrets/secret-box';
import { newWebhookSecret, webhookSecretContext } from './momo-provider-secrets';
import {
  endSecrets,
  findProvider,
  insertProvider,
  insertSecret,
  listProviders,
  type StoredProvider,
  verifyingSecretsOfTenant,
} from './momo-providers-store';

export interface MomoProvidersDeps {
  db: Db;
  secrets: SecretBox;
}

/** Who acts: the tenant of the call and its claims, for the audit trail. Providers are shared by both environments. */
export interface ProviderCaller {
  tenantId: string;
  claims: InternalClaims;
}

function toProvider(provider: StoredProvider): MomoProvider {
  return {
    id: provider.id,
    tenantId: provider.tenantId,
    providerCode: provider.providerCode,
    name: provider.name,
    secretCreatedAt: provider.secretCreatedAt.toISOString(),
    createdAt: provider.createdAt.toISOString(),
  };
}

/** A tenant's mobile money providers, each with a webhook secret sealed under the master key. */
export class MomoProvidersService {
  constructor(private readonly deps: MomoProvidersDeps) {}

  async create(caller: ProviderCaller, body: CreateMomoProviderBody): Promise<MomoProviderWithSecret> {
    const id = newId('momoProvider');
    const webhookSecret = newWebhookSecret();
    const sealed = this.deps.secrets.seal(webhookSecret, webhookSecretContext(id));
    const provider = await this.deps.db.transaction(async (tx) => {
      const stored = await insertProvider(tx, { id, tenantId: caller.tenantId, providerCode: body.providerCode, name: body.name }, sealed);
      if (!stored)
        throw new AppError('PROVIDER_EXISTS', `The provider code "${body.providerCode}" is already registered`, {
          providerCode: body.providerCode,
        });
      await this.audit(tx, caller, stored, 'momo_provider.created', { providerCode: stored.providerCode, name: stored.name });
      return stored;
    });
    return { ...toProvider(provider), webhookSecret };
  }

  async list(caller: ProviderCaller, query: PageQuery): Promise<Page<MomoProvider>> {
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listProviders(this.deps.db, { tenantId: caller.tenantId, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toProvider), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  async get(caller: ProviderCaller, id: string): Promise<MomoProvider> {
    const provider = await findProvider(this.deps.db, caller.tenantId, id);
    if (!provider) throw new AppError('PROVIDER_NOT_FOUND', 'No such mobile money provider');
    return toProvider(provider);
  }

  async rotateSecret(caller: ProviderCaller, id: string, body: RotateMomoProviderSecretBody): Promise<MomoProviderWithSecret> {
    const now = new Date();
    const previousValidUntil = new Date(now.getTime() + body.expiresInSeconds * 1000);
    const webhookSecret = newWebhookSecret();
    const provider = await this.deps.db.transaction(async (tx) => {
      const current = await findProvider(tx, caller.tenantId, id, { forUpdate: true });
      if (!current) throw new AppError('PROVIDER_NOT_FOUND', 'No such mobile money provider');
      await endSecrets(tx, current.id, previousValidUntil, now);
      await insertSecret(tx, current.id, this.deps.secrets.seal(webhookSecret, webhookSecretContext(current.id)));
      await this.audit(tx, caller, current, 'momo_provider.secret_rotated', {
        expiresInSeconds: body.expiresInSeconds,
        previousValidUntil: previousValidUntil.toISOString(),
      });
      return findProvider(tx, caller.tenantId, id);
    });
    if (!provider) throw new Error(`provider ${id} vanished inside its own rotation`);
    return { ...toProvider(provider), webhookSecret };
  }

  /** For the payments service: every provider of the tenant with its webhook secrets that verify now, decrypted. */
  async secretsOfTenant(tenantId: string): Promise<MomoProviderSecrets> {
    const found = await verifyingSecretsOfTenant(this.deps.db, tenantId, new Date());
    return {
      data: found.map(({ provider, secrets }) => ({
        id: provider.id,
        tenantId: provider.tenantId,
        providerCode: provider.providerCode,
        name: provider.name,
        webhookSecrets: secrets.map((secret) => ({
          secret: this.deps.secrets.open(secret.sealed, webhookSecretContext(provider.id)),
          validUntil: secret.validUntil?.toISOString() ?? null,
        })),
      })),
    };
  }

  private async audit(
    tx: Tx,
    caller: ProviderCaller,
    provider: StoredProvider,
    action: string,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    const actor = auditActorFields(caller.claims);
    await recordAuditEvents(tx, [
      {
        tenantId: provider.tenantId,
        // Providers serve both environments, so their trail shows in both.
        environment: null,
        action,
        actorType: actor.actorType,
        actorId: actor.actorId,
        targetType: 'momo_provider',
        targetId: provider.id,
        metadata: { ...actor.metadata, ...metadata },
      },
    ]);
  }
}
