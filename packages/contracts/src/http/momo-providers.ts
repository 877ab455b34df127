import { z } from 'zod';
import { pageQuerySchema, pageSchema } from '../common';
import { integerInputSchema } from '../json';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

/** Names the provider in webhooks and in its float account (`momo-float:<providerCode>`), hence so strict. */
export const providerCodeSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{1,31}$/, 'must be 2-32 lowercase letters, digits, _ or -, starting with a letter or digit');

export const createMomoProviderBodySchema = z.object({
  providerCode: providerCodeSchema,
  name: plainTextSchema(200),
});
export type CreateMomoProviderBody = z.infer<typeof createMomoProviderBodySchema>;

export const rotateMomoProviderSecretBodySchema = z.object({
  /** How long the old webhook secret keeps verifying: 0-604800 s, default 0. */
  expiresInSeconds: integerInputSchema({ min: 0, max: 604_800 }).default(0),
});
export type RotateMomoProviderSecretBody = z.infer<typeof rotateMomoProviderSecretBodySchema>;

/** A mobile money provider of a tenant, shared by both environments. Never its secret. */
export const momoProviderSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  providerCode: z.string(),
  name: z.string(),
  /** When the current webhook secret was issued. */
  secretCreatedAt: z.string(),
  createdAt: z.string(),
});
export type MomoProvider = z.infer<typeof momoProviderSchema>;

/** Creation and rotation answer once with the webhook secret. */
export const momoProviderWithSecretSchema = momoProviderSchema.extend({ webhookSecret: z.string() });
export type MomoProviderWithSecret = z.infer<typeof momoProviderWithSecretSchema>;

/**
 * Internal, for the payments service with a system token:
 * `GET /internal/v1/tenants/{tenantId}/momo-providers`. Every provider of the tenant with each
 * webhook secret that verifies right now (the current one with validUntil null, a rotated-out
 * one until its overlap ends), decrypted. An unknown tenant has no providers: `{data: []}`.
 */
export const momoProviderSecretsSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      tenantId: z.string(),
      providerCode: z.string(),
      name: z.string(),
      webhookSecrets: z.array(z.object({ secret: z.string(), validUntil: z.string().nullable() })).min(1),
    }),
  ),
});
export type MomoProviderSecrets = z.infer<typeof momoProviderSecretsSchema>;

export const MOMO_PROVIDER_ROUTES: RouteContract[] = [
  {
    method: 'post',
    path: '/v1/admin/momo-providers',
    operationId: 'momoProviders.create',
    summary: 'Register a mobile money provider; its webhookSecret is in this answer only',
    surface: 'tenant',
    service: 'identity',
    scope: 'providers:manage',
    body: createMomoProviderBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: momoProviderWithSecretSchema },
    errors: ['PROVIDER_EXISTS'],
  },
  {
    method: 'get',
    path: '/v1/admin/momo-providers',
    operationId: 'momoProviders.list',
    summary: 'List mobile money providers, newest first, without secrets',
    surface: 'tenant',
    service: 'identity',
    scope: 'providers:manage',
    query: pageQuerySchema,
    success: { status: 200, schema: pageSchema(momoProviderSchema) },
  },
  {
    method: 'get',
    path: '/v1/admin/momo-providers/{id}',
    operationId: 'momoProviders.get',
    summary: 'Get a mobile money provider, without its secret',
    surface: 'tenant',
    service: 'identity',
    scope: 'providers:manage',
    success: { status: 200, schema: momoProviderSchema },
    errors: ['PROVIDER_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/admin/momo-providers/{id}/rotate-secret',
    operationId: 'momoProviders.rotateSecret',
    summary: 'Issue a new webhook secret (shown once); the old one verifies for expiresInSeconds more',
    surface: 'tenant',
    service: 'identity',
    scope: 'providers:manage',
    body: rotateMomoProviderSecretBodySchema,
    idempotencyKey: 'optional',
    success: { status: 200, schema: momoProviderWithSecretSchema },
    errors: ['PROVIDER_NOT_FOUND'],
  },
];
