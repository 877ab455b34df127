import { commonConfigShape, loadConfig } from '@wallet/kit';
import { z } from 'zod';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const upstreamUrl = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);

/** The gateway's environment: the common variables plus its two listeners, upstreams and keys. */
export const gatewayConfigShape = {
  ...commonConfigShape,
  GATEWAY_PORT: port(8080),
  /** The admin listener serves only the system surface; it may bind to a more private host. */
  ADMIN_PORT: port(8081),
  ADMIN_HOST: z.string().min(1).optional(),
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
};

export function loadGatewayConfig(env: NodeJS.ProcessEnv) {
  return loadConfig(gatewayConfigShape, env);
}
