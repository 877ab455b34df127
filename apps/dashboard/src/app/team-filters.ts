import { auditEventQuerySchema, environmentSchema, requestLogQuerySchema, teamMemberQuerySchema } from '@wallet/contracts';
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
 * `false` (a query string has no booleans); the URL keeps it a boolean, which the router's
 * search parser gives back as one.
 */
export const requestLogFiltersSchema = requestLogQuerySchema
  .pick({ correlationId: true, idempotencyKey: true, apiKeyId: true, status: true })
  .extend({ requestSignatureVerified: z.boolean().optional() });
export type RequestLogFilters = z.infer<typeof requestLogFiltersSchema>;

export const DEVELOPER_TABS = ['keys', 'logs'] as const;

/** The developers screen: which tab, the key list's environment, the request logs' filters. */
export const developersSearchSchema = requestLogFiltersSchema.extend({
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

/** Only the request logs' own filters of the developers search (the tab and environment belong to other parts). */
export function requestLogFiltersOf(search: DevelopersSearch): RequestLogFilters {
  const { tab: _tab, environment: _environment, ...filters } = search;
  return filters;
}
