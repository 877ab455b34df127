import { z } from 'zod';
import { brokerAddresses } from './amqp';
import { databaseHosts, urlForDatabase, urlForHost } from './postgres-primary';
import { backgroundPaceConfigShape } from './background-pace';
import { DEFAULT_LIST_EXAMINE_MAX } from './bounded-list';
import { retentionStartConfigShape } from './retention';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads configuration from environment variables only, validated by a zod schema whose keys
 * are the variable names. A bad value stops the service with a message naming the variable.
 */
export function loadConfig<Shape extends z.ZodRawShape>(shape: Shape, env: NodeJS.ProcessEnv = process.env): z.infer<z.ZodObject<Shape>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return result.data;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Variables every service reads. */
export const commonConfigShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The server: one PostgreSQL URL, or a primary and its standbys in libpq's multi-host form (`postgres://u@db1:5432,db2:5432/postgres`). */
  DATABASE_URL: z
    .string()
    .default(DEFAULT_DATABASE_URL)
    .refine((value) => databaseHosts(value).length > 0 && databaseHosts(value).every((host) => URL.canParse(urlForHost(value, host))), {
      message: 'must be a PostgreSQL URL, with one host or several separated by commas',
    }),
  /** One AMQP URL, or a cluster's nodes separated by commas: a service connects to the first that answers. */
  AMQP_URL: z
    .string()
    .default(DEFAULT_AMQP_URL)
    .refine((value) => brokerAddresses(value).length > 0 && brokerAddresses(value).every((address) => URL.canParse(address)), {
      message: 'must be an AMQP URL, or several separated by commas',
    }),
  INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters'),
  HOST: z.string().default('127.0.0.1'),
  /**
   * How often a service analyzes and vacuums its own tables when the server's autovacuum is off
   * (with it on, never); 0 turns this off.
   */
  TABLE_MAINTENANCE_INTERVAL_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * How many records a list tests per request against the filters no index serves (a status, a
   * source); a page that runs out comes back short with a cursor that goes on.
   */
  LIST_EXAMINE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_LIST_EXAMINE_MAX),
  /**
   * A message that expects an answer (a ledger command) and has none this long after it was sent
   * is sent again, and again each time as long; its consumer answers a repeat from its record
   * (outbox-unanswered.ts).
   */
  OUTBOX_RESEND_UNANSWERED_AFTER_MS: z.coerce.number().int().min(500).max(86_400_000).default(300_000),
  ...backgroundPaceConfigShape,
  ...retentionStartConfigShape,
};

/**
 * Each service owns one database. `DATABASE_URL` names the server; the service's database is
 * `wallet_<service>` on it unless `<SERVICE>_DATABASE_URL` names one outright.
 */
export function serviceDatabaseUrl(service: string, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[`${service.toUpperCase()}_DATABASE_URL`];
  if (explicit) return explicit;
  return urlForDatabase(env.DATABASE_URL ?? DEFAULT_DATABASE_URL, `wallet_${service}`);
}
