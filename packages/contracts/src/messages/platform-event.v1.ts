import { z } from 'zod';
import { environmentSchema, timestampSchema } from '../common';
import { idSchema } from '../ids';

/**
 * Every event type the platform sends (docs/events.md): one per state change of money and of
 * the things that hold it, named `<object>.<what happened>`. `webhook_endpoint.test` is only
 * ever sent on demand, to the endpoint that asked for it.
 */
export const EVENT_TYPES = [
  'deposit.pending',
  'deposit.completed',
  'deposit.rejected',
  'transfer.completed',
  'transfer.failed',
  'transfer.reversed',
  'payout.requested',
  'payout.approved',
  'payout.rejected',
  'payout.completed',
  'payout.failed',
  'withdrawal.requested',
  'withdrawal.approved',
  'withdrawal.rejected',
  'withdrawal.completed',
  'withdrawal.failed',
  'float_deposit.completed',
  'wallet.created',
  'wallet.frozen',
  'wallet.unfrozen',
  'reconciliation.mismatch',
  'webhook_endpoint.test',
] as const;
export const eventTypeSchema = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventTypeSchema>;

/** The object an event is about, as the API shows it (a transfer, a wallet, a reconciliation run, ...). */
export const eventObjectSchema = z.record(z.string(), z.unknown());

/** An event, as `GET /v1/events` shows it and as a webhook delivers it: the same bytes on every attempt. */
export const platformEventSchema = z.object({
  id: idSchema('event'),
  type: eventTypeSchema,
  createdAt: timestampSchema,
  environment: environmentSchema,
  data: z.object({ object: eventObjectSchema }),
});
export type PlatformEvent = z.infer<typeof platformEventSchema>;

/**
 * `platform.event.v1`: one event a service announced, as the first release wrote it. Identity
 * still reads it (one may wait in its queue across an upgrade); services write `platform.events.v1`.
 */
export const platformEventV1Schema = z.object({
  type: z.literal('platform.event.v1'),
  tenantId: z.string(),
  objectId: z.string(),
  event: platformEventSchema,
});
export type PlatformEventV1 = z.infer<typeof platformEventV1Schema>;

/**
 * An event as a service announces it: the event's JSON text exactly as webhooks send it and
 * `GET /v1/events` shows it (written once, losslessly, by the announcer, and stored as it came),
 * with the fields identity files it by. `objectId` orders deliveries: one endpoint gets an
 * object's events in order.
 */
export const announcedEventSchema = z.object({
  tenantId: z.string(),
  objectId: z.string(),
  id: idSchema('event'),
  type: eventTypeSchema,
  environment: environmentSchema,
  createdAt: timestampSchema,
  json: z.string(),
});
export type AnnouncedEvent = z.infer<typeof announcedEventSchema>;

/**
 * `platform.events.v1`: the events one transaction (or one batch of ledger results) announced,
 * in order, as one message: a busy batch costs the broker one message, not one per event.
 */
export const platformEventsV1Schema = z.object({
  type: z.literal('platform.events.v1'),
  events: z.array(announcedEventSchema).min(1),
});
export type PlatformEventsV1 = z.infer<typeof platformEventsV1Schema>;
