import { commonConfigShape, DEFAULT_LIST_EXAMINE_MAX, loadConfig } from '@wallet/kit';
import { z } from 'zod';
import type { BucketPolicy } from './features/rate-limits/bucket-store';
import type { RateLimitPolicies } from './features/rate-limits/rate-limiter';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const upstreamUrl = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);
/** Fractions allowed: 0.5 is one token every two seconds. */
const ratePerSecond = (fallback: number) => z.coerce.number().min(0).max(1_000_000).default(fallback);
/** At least one token, or the bucket could never let a request through. */
const burst = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback);

/** The gateway's environment: the common variables plus its two listeners, upstreams and keys. */
export const gatewayConfigShape = {
  ...commonConfigShape,
  GATEWAY_PORT: port(8080),
  /** The admin listener serves only the system surface; it may bind to a more private host. */
  ADMIN_PORT: port(8081),
  ADMIN_HOST: z.string().min(1).optional(),
  /** The dashboard's pages and, on the same origin, the tenant API with a cookie session (`{demo_url}`). */
  DASHBOARD_PORT: port(8082),
  DASHBOARD_HOST: z.string().min(1).optional(),
  /** The built app; relative to the working directory. */
  DASHBOARD_DIST: z.string().min(1).default('apps/dashboard/dist'),
  /** `true` behind a TLS terminator: the cookies are then Secure and the pages' origin is https. */
  DASHBOARD_SECURE_COOKIES: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  IDENTITY_URL: upstreamUrl('http://127.0.0.1:8091'),
  LEDGER_URL: upstreamUrl('http://127.0.0.1:8092'),
  PAYMENTS_URL: upstreamUrl('http://127.0.0.1:8093'),
  TREASURY_URL: upstreamUrl('http://127.0.0.1:8094'),
  SYSTEM_API_KEY: z.string().min(32, 'must be at least 32 characters'),
  /** Covers connecting, the upstream's answer and reading its body. */
  GATEWAY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** How long a successful key lookup is trusted without asking identity again; 0 disables the cache. */
  GATEWAY_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /** How often expired request nonces are deleted. */
  GATEWAY_NONCE_PURGE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),

  /**
   * Token buckets (tokens per second, and how many a full bucket holds). Per credential: an
   * API key, or a dashboard session's team member. Per tenant: both environments together.
   * Per client address: public routes and failed authentications. A rate of 0 turns that
   * bucket off; system-key requests spend from none.
   */
  GATEWAY_RATE_LIMIT_KEY_PER_SECOND: ratePerSecond(50),
  GATEWAY_RATE_LIMIT_KEY_BURST: burst(100),
  GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: ratePerSecond(200),
  GATEWAY_RATE_LIMIT_TENANT_BURST: burst(400),
  GATEWAY_RATE_LIMIT_IP_PER_SECOND: ratePerSecond(20),
  GATEWAY_RATE_LIMIT_IP_BURST: burst(40),
  /** How often buckets idle long enough to be full again are deleted. */
  GATEWAY_RATE_LIMIT_PURGE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),

  /** How long request logs are kept, and how often older ones are deleted. */
  GATEWAY_REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  GATEWAY_REQUEST_LOG_PURGE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  /** A request-log list tests at most this many records per request against the filters no index serves (status, method, key, actor, ...). */
  GATEWAY_REQUEST_LOG_EXAMINE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_LIST_EXAMINE_MAX),
  /** Request logs are buffered and inserted in batches at least this often (and whenever a batch is full). */
  GATEWAY_REQUEST_LOG_FLUSH_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
};

export type GatewayConfig = z.infer<z.ZodObject<typeof gatewayConfigShape>>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  return loadConfig(gatewayConfigShape, env);
}

function policy(perSecond: number, burstSize: number): BucketPolicy | null {
  return perSecond > 0 ? { ratePerSecond: perSecond, burst: burstSize } : null;
}

export function rateLimitPolicies(config: GatewayConfig): RateLimitPolicies {
  return {
    credential: policy(config.GATEWAY_RATE_LIMIT_KEY_PER_SECOND, config.GATEWAY_RATE_LIMIT_KEY_BURST),
    tenant: policy(config.GATEWAY_RATE_LIMIT_TENANT_PER_SECOND, config.GATEWAY_RATE_LIMIT_TENANT_BURST),
    address: policy(config.GATEWAY_RATE_LIMIT_IP_PER_SECOND, config.GATEWAY_RATE_LIMIT_IP_BURST),
  };
}
