import {
  type CreateWebhookEndpointBody,
  newId,
  type Page,
  type PageQuery,
  type PlatformEvent,
  type ReplayWebhookBody,
  type RotateWebhookSecretBody,
  type UpdateWebhookEndpointBody,
  type WebhookDelivery,
  type WebhookDeliveryQuery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '@wallet/contracts';
import { announcedEvent, AppError, type Db, pageBySeq, type Tx } from '@wallet/kit';
import type { SecretBox } from '../secrets/secret-box';
import { AddressNotAllowedError, type AddressPolicy, checkUrlAddresses } from './address-guard';
import { listDeliveries, replayEvent, replayFailedSince } from './delivery-reads';
import {
  deleteEndpoint,
  endpointSecretContext,
  endSecrets,
  type EndpointScope,
  findEndpoint,
  insertEndpoint,
  insertSecret,
  listEndpoints,
  newEndpointSecret,
  type StoredEndpoint,
  updateEndpoint,
} from './endpoints-store';
import { recordPlatformEvents } from './events-store';

export interface EndpointsDeps {
  db: Db;
  secrets: SecretBox;
  policy: AddressPolicy;
  /** Told when deliveries became due (a test event, a replay). */
  wake(): void;
}

function shown(endpoint: StoredEndpoint): WebhookEndpoint {
  const { seq: _seq, ...rest } = endpoint;
  return rest;
}

const notFound = () => new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', 'No such webhook endpoint');

/** A tenant's webhook endpoints in one environment (docs/events.md). */
export class EndpointsService {
  constructor(private readonly deps: EndpointsDeps) {}

  async create(scope: EndpointScope, body: CreateWebhookEndpointBody): Promise<WebhookEndpointWithSecret> {
    await this.checkUrl(scope, body.url);
    const id = newId('webhookEndpoint');
    const secret = newEndpointSecret();
    const sealed = this.deps.secrets.seal(secret, endpointSecretContext(id));
    const endpoint = await this.deps.db.transaction((tx) =>
      insertEndpoint(tx, scope, { id, url: body.url, description: body.description ?? null, eventTypes: body.eventTypes }, sealed),
    );
    return { ...shown(endpoint), secret };
  }

  async list(scope: EndpointScope, query: PageQuery): Promise<Page<WebhookEndpoint>> {
    return pageBySeq(query, (beforeSeq) => listEndpoints(this.deps.db, scope, { beforeSeq, limit: query.limit }), shown);
  }

  async get(scope: EndpointScope, id: string): Promise<WebhookEndpoint> {
    return shown(await this.require(this.deps.db, scope, id));
  }

  /** Enabling an endpoint the platform disabled clears its failing streak: it gets the full schedule again. */
  async update(scope: EndpointScope, id: string, body: UpdateWebhookEndpointBody): Promise<WebhookEndpoint> {
    if (body.url !== undefined) await this.checkUrl(scope, body.url);
    return this.deps.db.transaction(async (tx) => {
      await this.require(tx, scope, id, { forUpdate: true });
      const changes: Record<string, unknown> = {};
      if (body.url !== undefined) changes.url = body.url;
      if (body.eventTypes !== undefined) changes.event_types = [...body.eventTypes];
      if (body.description !== undefined) changes.description = body.description;
      if (body.enabled !== undefined) Object.assign(changes, { enabled: body.enabled, disabled_reason: null, failing_since: null });
      await updateEndpoint(tx, id, changes);
      return shown(await this.require(tx, scope, id));
    });
  }

  async delete(scope: EndpointScope, id: string): Promise<WebhookEndpoint> {
    return this.deps.db.transaction(async (tx) => {
      const endpoint = await this.require(tx, scope, id, { forUpdate: true });
      await deleteEndpoint(tx, id);
      return shown(endpoint);
    });
  }

  /** A new current secret; the ones signing until now also sign for `expiresInSeconds` more, so receivers can switch without a gap. */
  async rotateSecret(scope: EndpointScope, id: string, body: RotateWebhookSecretBody): Promise<WebhookEndpointWithSecret> {
    const secret = newEndpointSecret();
    const sealed = this.deps.secrets.seal(secret, endpointSecretContext(id));
    const endpoint = await this.deps.db.transaction(async (tx) => {
      await this.require(tx, scope, id, { forUpdate: true });
      await endSecrets(tx, id, new Date(Date.now() + body.expiresInSeconds * 1000));
      await insertSecret(tx, id, sealed);
      return this.require(tx, scope, id);
    });
    return { ...shown(endpoint), secret };
  }

  /** A `webhook_endpoint.test` event, recorded and due to this endpoint alone. */
  async sendTest(scope: EndpointScope, id: string): Promise<PlatformEvent> {
    const event: PlatformEvent = {
      id: newId('event'),
      type: 'webhook_endpoint.test',
      createdAt: new Date().toISOString(),
      environment: scope.environment,
      data: { object: { id, message: 'A test event sent on request' } },
    };
    await this.deps.db.transaction(async (tx) => {
      await this.require(tx, scope, id);
      await recordPlatformEvents(tx, [announcedEvent({ tenantId: scope.tenantId, objectId: id, event })]);
      await replayEvent(tx, id, event.id);
    });
    this.deps.wake();
    return event;
  }

  async deliveries(scope: EndpointScope, id: string, query: WebhookDeliveryQuery): Promise<Page<WebhookDelivery>> {
    await this.require(this.deps.db, scope, id);
    return listDeliveries(this.deps.db, id, query);
  }

  async replay(scope: EndpointScope, id: string, body: ReplayWebhookBody): Promise<{ replayed: number }> {
    const replayed = await this.deps.db.transaction(async (tx) => {
      await this.require(tx, scope, id);
      if ('eventId' in body) {
        if (!(await replayEvent(tx, id, body.eventId, scope))) throw new AppError('EVENT_NOT_FOUND', 'No such event');
        return 1;
      }
      return replayFailedSince(tx, id, new Date(body.since));
    });
    this.deps.wake();
    return { replayed };
  }

  private async require(db: Db | Tx, scope: EndpointScope, id: string, options: { forUpdate?: boolean } = {}): Promise<StoredEndpoint> {
    const endpoint = await findEndpoint(db, scope, id, options);
    if (!endpoint) throw notFound();
    return endpoint;
  }

  /** Public addresses only (address-guard.ts), and HTTPS in live unless private addresses are allowed (a development setup). */
  private async checkUrl(scope: EndpointScope, url: string): Promise<void> {
    const parsed = new URL(url);
    if (scope.environment === 'live' && parsed.protocol !== 'https:' && !this.deps.policy.allowPrivate)
      throw new AppError('WEBHOOK_URL_NOT_ALLOWED', 'Live webhook endpoints must use https');
    try {
      await checkUrlAddresses(this.deps.policy, parsed);
    } catch (error) {
      if (error instanceof AddressNotAllowedError) throw new AppError('WEBHOOK_URL_NOT_ALLOWED', error.message, { range: error.range });
      throw new AppError('WEBHOOK_URL_NOT_ALLOWED', `${parsed.hostname} does not resolve`);
    }
  }
}
