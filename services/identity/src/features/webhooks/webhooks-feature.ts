import { type AnnouncedEvent, parseJsonLossless, platformEventsV1Schema, platformEventV1Schema, TOPOLOGY } from '@wallet/contracts';
import {
  announcedEvent,
  type BatchConsumer,
  type Broker,
  daysMs,
  type Db,
  type Logger,
  type RetentionRule,
  type ServiceMetrics,
  startBatchConsumer,
} from '@wallet/kit';
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { Mailer } from '../mail/mailer';
import type { SecretBox } from '../secrets/secret-box';
import { EndpointNotices } from './endpoint-notices';
import { EndpointsService } from './endpoints-service';
import { recordPlatformEvents } from './events-store';
import { WebhookSender } from './webhook-sender';
import { WebhookWorker } from './webhook-worker';
import { webhooksRouter } from './webhooks-router';

/** About three days of retries after the first attempt: 11 attempts (docs/events.md). */
const DEFAULT_RETRY_DELAYS_SECONDS = '5,60,300,1800,7200,18000,36000,50400,72000,72000';

const secondsList = z
  .string()
  .transform((text) => text.split(',').map((part) => Number(part.trim())))
  .pipe(
    z
      .array(
        z
          .number()
          .min(0)
          .max(7 * 86_400),
      )
      .min(1)
      .max(30),
  );

/** The variables of events and webhooks. */
export const webhooksConfigShape = {
  /** How long events are kept for GET /v1/events and replays: at least 30 days. */
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(30).max(3650).default(30),
  /** The wait before each retry of a failed delivery, in seconds, comma-separated. */
  WEBHOOK_RETRY_DELAYS_SECONDS: secondsList.default(DEFAULT_RETRY_DELAYS_SECONDS.split(',').map(Number)),
  /** An endpoint whose deliveries have all failed for this long is disabled and its org-admins told. */
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .min(1)
    .max(30 * 86_400)
    .default(5 * 86_400),
  /** One attempt's deadline: connecting, sending and reading the answer's start. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /**
   * Whether this instance records announced events and delivers webhooks. `npm start` turns it off
   * in the identity that serves requests and runs an instance of its own for it, at a lower CPU
   * priority: on a shared machine a burst of money traffic is served first, and deliveries catch up.
   */
  WEBHOOK_DELIVERY: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** Development and tests only: deliver to private, loopback and link-local addresses, and over http in live. */
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
};
export type WebhooksConfig = z.infer<z.ZodObject<typeof webhooksConfigShape>>;

/** Events past their window go (the log's promise is 30 days), and finished deliveries with them. */
export function webhooksRetentionRules(config: Pick<WebhooksConfig, 'EVENTS_RETENTION_DAYS'>): RetentionRule[] {
  const windowMs = daysMs(config.EVENTS_RETENTION_DAYS);
  return [
    { table: 'platform_events', column: 'recorded_at', windowMs, index: { kind: 'brin', name: 'platform_events_recorded_at' } },
    {
      table: 'webhook_deliveries',
      column: 'created_at',
      windowMs,
      index: { kind: 'brin', name: 'webhook_deliveries_created_at' },
      andWhere: "status <> 'pending'",
    },
  ];
}

export interface WebhooksParts {
  routes(app: Router): void;
  stop(): Promise<void>;
}

/**
 * Starts the event log's consumer of `platform.events` (each event recorded once, with its due
 * deliveries) and the delivery worker, and gives the routes.
 */
export async function startWebhooks(deps: {
  config: WebhooksConfig;
  db: Db;
  broker: Broker;
  logger: Logger;
  metrics: ServiceMetrics;
  secrets: SecretBox;
  mailer: Mailer | null;
  rememberSealed: RequestHandler;
}): Promise<WebhooksParts> {
  const { config, db, logger } = deps;
  const policy = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES };
  if (policy.allowPrivate) logger.warn('WEBHOOK_ALLOW_PRIVATE_ADDRESSES is true: webhooks may reach private addresses (development only)');
  // An instance that does not deliver still serves the routes: the delivering one finds new work at its next poll.
  const delivery = config.WEBHOOK_DELIVERY ? await startDelivery(deps, policy) : null;
  const endpoints = new EndpointsService({ db, secrets: deps.secrets, policy, wake: () => delivery?.wake() });
  return {
    routes: (app) => app.use(webhooksRouter(db, endpoints, deps.rememberSealed)),
    stop: async () => {
      await delivery?.stop();
    },
  };
}

/** The events consumer and the delivery worker: what WEBHOOK_DELIVERY turns on. */
async function startDelivery(
  deps: Parameters<typeof startWebhooks>[0],
  policy: { allowPrivate: boolean },
): Promise<{ wake(): void; stop(): Promise<void> }> {
  const { config, db, logger } = deps;
  const sender = new WebhookSender({ policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  const worker = new WebhookWorker({
    db,
    secrets: deps.secrets,
    sender,
    notices: new EndpointNotices({ db, mailer: deps.mailer, logger }),
    policy: {
      retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_SECONDS.map((seconds) => seconds * 1000),
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
      concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
      pollMs: 1_000,
    },
    logger,
    metrics: deps.metrics,
  });
  const consumer = await startEventsConsumer(deps, () => worker.wake());
  worker.start();
  return {
    wake: () => worker.wake(),
    stop: async () => {
      await consumer.stop();
      await worker.stop();
      await sender.close();
    },
  };
}

/**
 * A message's events: `platform.events.v1` parsed as plain JSON (every value in it is a string,
 * each event's JSON text among them, stored as it came), or one `platform.event.v1` of the first
 * release, parsed losslessly. Null for anything else.
 */
export function announcedEventsOf(content: Buffer): AnnouncedEvent[] | null {
  const text = content.toString('utf8');
  const batch = platformEventsV1Schema.safeParse(JSON.parse(text));
  if (batch.success) return batch.data.events;
  const single = platformEventV1Schema.safeParse(parseJsonLossless(text));
  return single.success ? [announcedEvent(single.data)] : null;
}

function startEventsConsumer(deps: { db: Db; broker: Broker; logger: Logger }, recorded: () => void): Promise<BatchConsumer> {
  return startBatchConsumer<AnnouncedEvent[]>({
    broker: deps.broker,
    logger: deps.logger,
    queue: TOPOLOGY.platformEvents.queue,
    what: 'platform events batch',
    batchSizeMax: 256,
    lingerMs: 50,
    parse: announcedEventsOf,
    correlationIdOf: (first) => `events:${first[0]?.id ?? 'none'}`,
    apply: async (batches) => {
      // One statement: the events and their deliveries are recorded together without a transaction around it.
      const due = await recordPlatformEvents(deps.db, batches.flat());
      if (due > 0) recorded();
    },
  });
}
