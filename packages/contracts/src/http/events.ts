import { z } from 'zod';
import { EVENT_TYPES, type EventType, eventTypeSchema, platformEventSchema } from '../messages/platform-event.v1';
import { depositSchema } from './deposits';
import { payoutCaseSchema } from './payouts';
import { reconciliationFullRunSchema } from './reconciliation';
import { transferReversalSchema, transferSchema } from './transfers';
import { floatDepositSchema, withdrawalSchema } from './treasury';
import { walletSchema } from './wallets';
import { createdRangeQueryShape, environmentSchema, instantInputSchema, pageQuerySchema, pageSchema, timestampSchema } from '../common';
import { idSchema } from '../ids';
import { integerInputSchema } from '../json';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

export const eventQuerySchema = pageQuerySchema.extend({
  /** One type, or several separated by commas. */
  type: z
    .string()
    .max(2000)
    .transform((text) => text.split(',').map((type) => type.trim()))
    .pipe(z.array(eventTypeSchema).min(1))
    .optional(),
  objectId: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}$/, 'must be an id')
    .optional(),
  ...createdRangeQueryShape,
});
export type EventQuery = z.infer<typeof eventQuerySchema>;

/** `*`: every type, including those added later. */
export const endpointEventTypesSchema = z.union([z.tuple([z.literal('*')]), z.array(eventTypeSchema).min(1).max(EVENT_TYPES.length)]);

export const webhookEndpointSchema = z.object({
  id: idSchema('webhookEndpoint'),
  environment: environmentSchema,
  url: z.string(),
  description: z.string().nullable(),
  eventTypes: z.array(z.string()),
  enabled: z.boolean(),
  /** Why the platform disabled it (`failing`, `gone`); null when enabled or disabled by the tenant. */
  disabledReason: z.enum(['failing', 'gone']).nullable(),
  /** Until when the secret before the last rotation still signs deliveries; null when none does. */
  previousSecretExpiresAt: timestampSchema.nullable(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** An endpoint with its signing secret (`whsec_...`): only in the answers of creation and rotation. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({ secret: z.string() });
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

const endpointUrlSchema = z.url({ protocol: /^https?$/ }).max(2000);

export const createWebhookEndpointBodySchema = z.object({
  url: endpointUrlSchema,
  eventTypes: endpointEventTypesSchema.default(['*']),
  description: plainTextSchema(500).optional(),
});
export type CreateWebhookEndpointBody = z.infer<typeof createWebhookEndpointBodySchema>;

export const updateWebhookEndpointBodySchema = z
  .object({
    url: endpointUrlSchema,
    eventTypes: endpointEventTypesSchema,
    description: plainTextSchema(500).nullable(),
    enabled: z.boolean(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must change at least one of url, eventTypes, description, enabled');
export type UpdateWebhookEndpointBody = z.infer<typeof updateWebhookEndpointBodySchema>;

export const rotateWebhookSecretBodySchema = z.object({
  /** How long the secret being replaced still signs deliveries beside the new one: 0 to 7 days, default 24 hours. */
  expiresInSeconds: integerInputSchema({ min: 0, max: 7 * 24 * 3600 }).default(24 * 3600),
});
export type RotateWebhookSecretBody = z.infer<typeof rotateWebhookSecretBodySchema>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const webhookDeliveryStatusSchema = z.enum(WEBHOOK_DELIVERY_STATUSES);

export const webhookAttemptSchema = z.object({
  attemptedAt: timestampSchema,
  /** The answer's HTTP status; null when none came (refused, timed out, address not allowed). */
  responseStatus: z.number().int().nullable(),
  latencyMs: z.number().int(),
  /** The start of the answer's body, or what went wrong. */
  excerpt: z.string(),
});

export const webhookDeliverySchema = z.object({
  id: idSchema('webhookDelivery'),
  endpointId: idSchema('webhookEndpoint'),
  eventId: idSchema('event'),
  eventType: eventTypeSchema,
  status: webhookDeliveryStatusSchema,
  attempts: z.array(webhookAttemptSchema),
  nextAttemptAt: timestampSchema.nullable(),
  createdAt: timestampSchema,
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryQuerySchema = pageQuerySchema.extend({
  status: webhookDeliveryStatusSchema.optional(),
  eventId: idSchema('event').optional(),
});
export type WebhookDeliveryQuery = z.infer<typeof webhookDeliveryQuerySchema>;

/** One event again, or every failed delivery of the endpoint since a time. */
export const replayWebhookBodySchema = z.union([
  z.strictObject({ eventId: idSchema('event') }),
  z.strictObject({ since: instantInputSchema }),
]);
export type ReplayWebhookBody = z.infer<typeof replayWebhookBodySchema>;

export const replayWebhookResultSchema = z.object({ replayed: z.number().int() });

const WEBHOOKS = '/v1/developer/webhook-endpoints';

/** The event log and webhook endpoints by name (developer screens, typed clients). */
export const eventRoutes = {
  list: {
    operationId: 'events.list',
    method: 'get',
    path: '/v1/events',
    summary: "List the environment's events, newest first (kept at least 30 days)",
    surface: 'tenant',
    service: 'identity',
    scope: 'events:read',
    query: eventQuerySchema,
    success: { status: 200, schema: pageSchema(platformEventSchema) },
  },
  get: {
    operationId: 'events.get',
    method: 'get',
    path: '/v1/events/{id}',
    summary: 'Get an event',
    surface: 'tenant',
    service: 'identity',
    scope: 'events:read',
    errors: ['EVENT_NOT_FOUND'],
    success: { status: 200, schema: platformEventSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const webhookEndpointRoutes = {
  list: {
    operationId: 'webhookEndpoints.list',
    method: 'get',
    path: WEBHOOKS,
    summary: "List the environment's webhook endpoints, without secrets",
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    query: pageQuerySchema,
    success: { status: 200, schema: pageSchema(webhookEndpointSchema) },
  },
  get: {
    operationId: 'webhookEndpoints.get',
    method: 'get',
    path: `${WEBHOOKS}/{id}`,
    summary: 'Get a webhook endpoint, without its secret',
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    success: { status: 200, schema: webhookEndpointSchema },
  },
  create: {
    operationId: 'webhookEndpoints.create',
    method: 'post',
    path: WEBHOOKS,
    summary: 'Create a webhook endpoint; its signing secret is shown once',
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    body: createWebhookEndpointBodySchema,
    idempotencyKey: 'optional',
    errors: ['WEBHOOK_URL_NOT_ALLOWED'],
    success: { status: 201, schema: webhookEndpointWithSecretSchema },
  },
  update: {
    operationId: 'webhookEndpoints.update',
    method: 'patch',
    path: `${WEBHOOKS}/{id}`,
    summary: "Change an endpoint's URL, event types, description, or enable or disable it",
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    body: updateWebhookEndpointBodySchema,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED'],
    success: { status: 200, schema: webhookEndpointSchema },
  },
  delete: {
    operationId: 'webhookEndpoints.delete',
    method: 'delete',
    path: `${WEBHOOKS}/{id}`,
    summary: 'Delete an endpoint: nothing more is delivered to it',
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    success: { status: 200, schema: webhookEndpointSchema },
  },
  rotateSecret: {
    operationId: 'webhookEndpoints.rotateSecret',
    method: 'post',
    path: `${WEBHOOKS}/{id}/rotate-secret`,
    summary: 'Rotate the signing secret (shown once); the old one also signs for expiresInSeconds more',
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    body: rotateWebhookSecretBodySchema,
    idempotencyKey: 'optional',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    success: { status: 200, schema: webhookEndpointWithSecretSchema },
  },
  sendTest: {
    operationId: 'webhookEndpoints.sendTest',
    method: 'post',
    path: `${WEBHOOKS}/{id}/test`,
    summary: 'Send a webhook_endpoint.test event to this endpoint now: 202 with the event, delivered shortly',
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    success: { status: 202, schema: platformEventSchema },
  },
  deliveries: {
    operationId: 'webhookEndpoints.deliveries',
    method: 'get',
    path: `${WEBHOOKS}/{id}/deliveries`,
    summary: "List the endpoint's deliveries, newest first, each with its attempts",
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    query: webhookDeliveryQuerySchema,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    success: { status: 200, schema: pageSchema(webhookDeliverySchema) },
  },
  replay: {
    operationId: 'webhookEndpoints.replay',
    method: 'post',
    path: `${WEBHOOKS}/{id}/replay`,
    summary:
      'Deliver one event again, or every failed delivery since a time: 202 with how many were put back (EVENT_NOT_FOUND for an unknown event)',
    surface: 'tenant',
    service: 'identity',
    scope: 'webhooks:manage',
    body: replayWebhookBodySchema,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'EVENT_NOT_FOUND'],
    success: { status: 202, schema: replayWebhookResultSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const EVENT_ROUTES: RouteContract[] = [...Object.values(eventRoutes), ...Object.values(webhookEndpointRoutes)];

/** The object each event carries, by the part of its type before the dot (a reversal for `transfer.reversed`). */
const EVENT_OBJECTS: Readonly<Record<string, z.ZodType>> = {
  deposit: depositSchema,
  transfer: transferSchema,
  payout: payoutCaseSchema,
  withdrawal: withdrawalSchema,
  float_deposit: floatDepositSchema,
  // Every entry moves a balance; a wallet event names the wallet, and GET /v1/wallets/{id} gives its balance.
  wallet: walletSchema.omit({ balance: true }),
  reconciliation: reconciliationFullRunSchema,
  webhook_endpoint: z.object({ id: idSchema('webhookEndpoint'), message: z.string() }),
};

/** An event of one type with its object's schema, as the OpenAPI document's `webhooks` show it. */
export function webhookEventSchema(type: EventType): z.ZodType {
  const object = type === 'transfer.reversed' ? transferReversalSchema : EVENT_OBJECTS[type.slice(0, type.indexOf('.'))];
  if (!object) throw new Error(`event type ${type} names no object`);
  return platformEventSchema.extend({ type: z.literal(type), data: z.object({ object }) });
}
