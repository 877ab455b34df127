import {
  auditEventQuerySchema,
  environmentSchema,
  eventQuerySchema,
  eventTypeSchema,
  requestLogQuerySchema,
  teamMemberQuerySchema,
  webhookDeliveryQuerySchema,
} from '@wallet/contracts';
import { z } from 'zod';

/*
 * The URL search of the team, audit and developer screens, each a pick of its API route's own
 * query schema: a shared link or the back button gives the same list the API would.
 */

export const teamFiltersSchema = teamMemberQuerySchema.pick({ orgRole: true, status: true });

export const auditFiltersSchema = auditEventQuerySchema.pick({
  action: true,
  actorId: true,
  targetType: true,
  targetId: true,
  from: true,
  to: true,
});

/**
 * The request logs' filters. The API takes `requestSignatureVerified` as the text `true` /
 * `false` (a query string has no booleans), and so does the address (the router keeps every
 * search value text); the filters hold a boolean.
 */
export const requestLogFiltersSchema = requestLogQuerySchema
  .pick({ correlationId: true, idempotencyKey: true, apiKeyId: true, status: true })
  .extend({
    requestSignatureVerified: z.preprocess(
      (value) => (value === 'true' ? true : value === 'false' ? false : value),
      z.boolean().optional(),
    ),
  });
export type RequestLogFilters = z.infer<typeof requestLogFiltersSchema>;

/**
 * The event log's filters. The API takes its types as one text, comma-separated; the URL keeps
 * them a list, each checked as the API checks it.
 */
export const eventFiltersSchema = eventQuerySchema
  .pick({ objectId: true, createdFrom: true, createdTo: true })
  .extend({ type: z.array(eventTypeSchema).min(1).optional() });
export type EventFilters = z.infer<typeof eventFiltersSchema>;

/** An endpoint's deliveries: which status. */
export const deliveryFiltersSchema = webhookDeliveryQuerySchema.pick({ status: true });
export type DeliveryFilters = z.infer<typeof deliveryFiltersSchema>;

export const DEVELOPER_TABS = ['keys', 'webhooks', 'events', 'logs'] as const;
export type DeveloperTab = (typeof DEVELOPER_TABS)[number];

/** The developers screen: which tab, the key list's environment, the request logs' and the event log's filters. */
export const developersSearchSchema = requestLogFiltersSchema.extend({
  ...eventFiltersSchema.shape,
  tab: z.enum(DEVELOPER_TABS).optional(),
  environment: environmentSchema.optional(),
});
export type DevelopersSearch = z.infer<typeof developersSearchSchema>;

/** The request-log route's query for these filters: unset ones left out, the boolean as the text the API parses. */
export function requestLogQuery(filters: RequestLogFilters): Omit<z.input<typeof requestLogQuerySchema>, 'limit' | 'cursor'> {
  const { requestSignatureVerified, ...rest } = filters;
  return {
    ...rest,
    requestSignatureVerified: requestSignatureVerified === undefined ? undefined : requestSignatureVerified ? 'true' : 'false',
  };
}

/** The event route's query for these filters: the types as the one comma-separated text the API takes. */
export function eventQuery(filters: EventFilters): Omit<z.input<typeof eventQuerySchema>, 'limit' | 'cursor'> {
  const { type, ...rest } = filters;
  return { ...rest, type: type?.join(',') };
}

/** The fields of `search` named in `schema`'s shape that are set: one part's filters of the developers search. */
function filtersIn<Schema extends z.ZodObject>(schema: Schema, search: DevelopersSearch): z.infer<Schema> {
  return Object.fromEntries(
    Object.entries(search).filter(([field, value]) => field in schema.shape && value !== undefined),
  ) as z.infer<Schema>;
}

/** Only the request logs' own filters of the developers search (the tab, environment and event filters belong to other parts). */
export function requestLogFiltersOf(search: DevelopersSearch): RequestLogFilters {
  return filtersIn(requestLogFiltersSchema, search);
}

/** Only the event log's own filters of the developers search. */
export function eventFiltersOf(search: DevelopersSearch): EventFilters {
  return filtersIn(eventFiltersSchema, search);
}
