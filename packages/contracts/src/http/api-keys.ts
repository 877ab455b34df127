import { z } from 'zod';
import { environmentSchema, pageQuerySchema, pageSchema } from '../common';
import { integerInputSchema } from '../json';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';

/** Every scope (docs/decisions/scopes.md); the last three are umbrellas. */
export const SCOPES = [
  'wallets:read',
  'wallets:create',
  'wallets:manage',
  'transfers:create',
  'wallet:transfer',
  'wallet:deposit',
  'deposits:verify',
  'payouts:create',
  'payouts:read',
  'payouts:approve',
  'treasury:read',
  'treasury:write',
  'treasury:approve',
  'fees:read',
  'fees:manage',
  'analytics:read',
  'request_logs:read',
  'api_keys:manage',
  'webhooks:manage',
  'events:read',
  'providers:manage',
  'team:manage',
  'team:read',
  'audit:read',
  'journal:read',
  'ledger:read',
  'ledger:write',
  'tenant:manage',
] as const;
export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

export const authModeSchema = z.enum(['secret', 'hmac']);
export type AuthMode = z.infer<typeof authModeSchema>;

/** An IPv4 or IPv6 address or CIDR block. */
export const cidrSchema = z.union([z.cidrv4(), z.cidrv6(), z.ipv4(), z.ipv6()]);

export const apiKeyRestrictionsSchema = z.object({
  requireRequestSigning: z.boolean().default(false),
  requireActorHeaders: z.boolean().default(false),
  allowedIps: z.array(cidrSchema).max(100).nullable().default(null),
});
export type ApiKeyRestrictions = z.infer<typeof apiKeyRestrictionsSchema>;

export const createApiKeyBodySchema = z.object({
  name: plainTextSchema(200),
  authMode: authModeSchema.default('secret'),
  scopes: z.array(scopeSchema).min(1).max(SCOPES.length),
  environment: environmentSchema,
  restrictions: apiKeyRestrictionsSchema.partial().optional(),
  /** Seconds until the key stops working; none: it works until revoked. */
  expiresInSeconds: integerInputSchema({ min: 60, max: 10 * 365 * 24 * 3600 }).optional(),
});
export type CreateApiKeyBody = z.infer<typeof createApiKeyBodySchema>;

/**
 * Only the restrictions named change; the others keep their value. No defaults here, unlike
 * `apiKeyRestrictionsSchema.partial()`, which would reset every field left out.
 */
export const apiKeyRestrictionsPatchSchema = z.object({
  requireRequestSigning: z.boolean().optional(),
  requireActorHeaders: z.boolean().optional(),
  /** null or [] lifts the address restriction. */
  allowedIps: z.array(cidrSchema).max(100).nullable().optional(),
});

export const updateApiKeyBodySchema = z
  .object({
    name: plainTextSchema(200).optional(),
    scopes: z.array(scopeSchema).min(1).max(SCOPES.length).optional(),
    restrictions: apiKeyRestrictionsPatchSchema.optional(),
  })
  .refine(
    (body) => body.name !== undefined || body.scopes !== undefined || body.restrictions !== undefined,
    'name, scopes or restrictions is required',
  );
export type UpdateApiKeyBody = z.infer<typeof updateApiKeyBodySchema>;

export const rotateApiKeyBodySchema = z.object({
  /** How long the old secret keeps working: 0-604800 s, default 0. */
  expiresInSeconds: integerInputSchema({ min: 0, max: 604_800 }).default(0),
});
export type RotateApiKeyBody = z.infer<typeof rotateApiKeyBodySchema>;

/** Lists: newest first. A key caller sees only its own environment whatever it asks; a session or the operator may filter. */
export const apiKeyListQuerySchema = pageQuerySchema.extend({
  environment: environmentSchema.optional(),
});
export type ApiKeyListQuery = z.infer<typeof apiKeyListQuerySchema>;

/** An API key as listed: never a secret. */
export const apiKeySchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  name: z.string(),
  authMode: authModeSchema,
  environment: environmentSchema,
  scopes: z.array(scopeSchema),
  restrictions: apiKeyRestrictionsSchema,
  /** `sk_test_` / `sk_live_` for secret keys; null for hmac keys. */
  keyPrefix: z.string().nullable(),
  last4: z.string().nullable(),
  status: z.enum(['active', 'revoked', 'expired']),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

/** Creation and rotation answer once with the secret: `key` (secret mode) or `signingSecret` (hmac). */
export const apiKeyWithSecretSchema = apiKeySchema.extend({
  key: z.string().optional(),
  signingSecret: z.string().optional(),
});
export type ApiKeyWithSecret = z.infer<typeof apiKeyWithSecretSchema>;

/**
 * What the gateway learns about a key from identity, to authenticate and authorize a call.
 * Internal: identity answers it only to a system internal token.
 */
export const apiKeyPrincipalSchema = z.object({
  keyId: z.string(),
  tenantId: z.string(),
  environment: environmentSchema,
  authMode: authModeSchema,
  scopes: z.array(scopeSchema),
  restrictions: apiKeyRestrictionsSchema,
  /**
   * When this credential stops working: the key's expiry, or for a secret replaced by rotation
   * the end of its overlap, whichever is first; null: until revoked. Gateways check it on every
   * use of a cached answer, so a cache never stretches a credential's life.
   */
  validUntil: z.string().nullable().default(null),
});
export type ApiKeyPrincipal = z.infer<typeof apiKeyPrincipalSchema>;

/** `POST /internal/v1/api-keys/authenticate-secret` body; 200 apiKeyPrincipal, or 401 INVALID_API_KEY / API_KEY_REVOKED / API_KEY_EXPIRED. */
export const authenticateSecretBodySchema = z.object({ key: z.string().min(1).max(256) });

/**
 * `GET /internal/v1/api-keys/{keyId}/signing-material`: the principal and the signing secrets
 * that verify right now (the current one, and the previous one until its overlap ends), or
 * 401 INVALID_API_KEY (unknown or not hmac) / API_KEY_REVOKED / API_KEY_EXPIRED.
 */
export const signingMaterialSchema = z.object({
  principal: apiKeyPrincipalSchema,
  signingSecrets: z.array(z.object({ secret: z.string(), validUntil: z.string().nullable() })).min(1),
});
export type SigningMaterial = z.infer<typeof signingMaterialSchema>;

/** `api_key.changed.v1` on identity.events (routing key `api_key.changed`): gateways drop their cache of the key. */
export const apiKeyChangedV1Schema = z.object({
  type: z.literal('api_key.changed.v1'),
  messageId: z.string(),
  keyId: z.string(),
  tenantId: z.string(),
  change: z.enum(['updated', 'rotated', 'revoked']),
  occurredAt: z.string(),
});
export type ApiKeyChangedV1 = z.infer<typeof apiKeyChangedV1Schema>;

/** A tenant's own key routes by name (developer screens, typed clients); API_KEY_ROUTES lists them after the operator's. */
export const apiKeyRoutes = {
  list: {
    method: 'get',
    path: '/v1/developer/api-keys',
    operationId: 'apiKeys.list',
    summary: 'List API keys, newest first, without secrets; a key sees those of its own environment',
    surface: 'tenant',
    service: 'identity',
    scope: 'api_keys:manage',
    query: apiKeyListQuerySchema,
    success: { status: 200, schema: pageSchema(apiKeySchema) },
  },
  get: {
    method: 'get',
    path: '/v1/developer/api-keys/{id}',
    operationId: 'apiKeys.get',
    summary: 'Get an API key, without its secret',
    surface: 'tenant',
    service: 'identity',
    scope: 'api_keys:manage',
    success: { status: 200, schema: apiKeySchema },
    errors: ['API_KEY_NOT_FOUND'],
  },
  create: {
    method: 'post',
    path: '/v1/developer/api-keys',
    operationId: 'apiKeys.create',
    summary: 'Create an API key with scopes the caller holds; a key creates only in its own environment',
    surface: 'tenant',
    service: 'identity',
    scope: 'api_keys:manage',
    body: createApiKeyBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: apiKeyWithSecretSchema },
    errors: ['SCOPE_ESCALATION', 'REQUEST_SIGNING_REQUIRES_HMAC'],
  },
  update: {
    method: 'patch',
    path: '/v1/developer/api-keys/{id}',
    operationId: 'apiKeys.update',
    summary: "Change a key's name, scopes or restrictions, without escalation",
    surface: 'tenant',
    service: 'identity',
    scope: 'api_keys:manage',
    body: updateApiKeyBodySchema,
    success: { status: 200, schema: apiKeySchema },
    errors: ['API_KEY_NOT_FOUND', 'SCOPE_ESCALATION', 'REQUEST_SIGNING_REQUIRES_HMAC'],
  },
  rotate: {
    method: 'post',
    path: '/v1/developer/api-keys/{id}/rotate',
    operationId: 'apiKeys.rotate',
    summary: 'Rotate the secret (key or signingSecret, shown once); the old one works for expiresInSeconds more',
    surface: 'tenant',
    service: 'identity',
    scope: 'api_keys:manage',
    body: rotateApiKeyBodySchema,
    idempotencyKey: 'optional',
    success: { status: 200, schema: apiKeyWithSecretSchema },
    errors: ['API_KEY_NOT_FOUND'],
  },
  revoke: {
    method: 'post',
    path: '/v1/developer/api-keys/{id}/revoke',
    operationId: 'apiKeys.revoke',
    summary: 'Revoke a key at once; later use answers 401 API_KEY_REVOKED',
    surface: 'tenant',
    service: 'identity',
    scope: 'api_keys:manage',
    success: { status: 200, schema: apiKeySchema },
    errors: ['API_KEY_NOT_FOUND'],
  },
} as const satisfies Record<string, RouteContract>;

export const API_KEY_ROUTES: RouteContract[] = [
  {
    method: 'get',
    path: '/v1/tenants/{id}/api-keys',
    operationId: 'apiKeys.listForTenant',
    summary: "List a tenant's API keys, newest first, without secrets",
    surface: 'system',
    service: 'identity',
    query: apiKeyListQuerySchema,
    success: { status: 200, schema: pageSchema(apiKeySchema) },
    errors: ['TENANT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/tenants/{id}/api-keys',
    operationId: 'apiKeys.createForTenant',
    summary: 'Create an API key for a tenant; the secret is in this answer only',
    surface: 'system',
    service: 'identity',
    body: createApiKeyBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: apiKeyWithSecretSchema },
    errors: ['TENANT_NOT_FOUND', 'REQUEST_SIGNING_REQUIRES_HMAC'],
  },
  {
    method: 'post',
    path: '/v1/tenants/{id}/api-keys/{keyId}/rotate',
    operationId: 'apiKeys.rotateForTenant',
    summary: "Rotate a tenant key's secret; the old one works for expiresInSeconds more",
    surface: 'system',
    service: 'identity',
    body: rotateApiKeyBodySchema,
    idempotencyKey: 'optional',
    success: { status: 200, schema: apiKeyWithSecretSchema },
    errors: ['TENANT_NOT_FOUND', 'API_KEY_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/tenants/{id}/api-keys/{keyId}/revoke',
    operationId: 'apiKeys.revokeForTenant',
    summary: 'Revoke a tenant key at once',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: apiKeySchema },
    errors: ['TENANT_NOT_FOUND', 'API_KEY_NOT_FOUND'],
  },
  ...Object.values(apiKeyRoutes),
];
