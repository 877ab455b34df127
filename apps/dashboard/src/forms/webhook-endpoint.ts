import type { endpointEventTypesSchema, EventType, WebhookEndpoint } from '@wallet/contracts';
import type { z } from 'zod';
import { type FieldErrors, optionalText } from './schema';

/** An endpoint's form: its URL, all types or a chosen list, and a description. */
export interface EndpointFormValues {
  url: string;
  subscription: 'all' | 'chosen';
  eventTypes: string[];
  description: string;
}

export const NEW_ENDPOINT: EndpointFormValues = { url: '', subscription: 'all', eventTypes: [], description: '' };

export function endpointFormValues(endpoint: WebhookEndpoint): EndpointFormValues {
  const all = endpoint.eventTypes.includes('*');
  return {
    url: endpoint.url,
    subscription: all ? 'all' : 'chosen',
    eventTypes: all ? [] : endpoint.eventTypes,
    description: endpoint.description ?? '',
  };
}

/** The fields of an endpoint's body as the form gives them, before the contracts' schema checks them. */
export interface EndpointBodyFields {
  url: string;
  eventTypes: z.input<typeof endpointEventTypesSchema>;
  description: string | undefined;
}

/**
 * The body's fields of the form, for the contracts' schema to check. A chosen list left empty is
 * said here: the schema's own refusal of it (no union member matches) names nothing a user can act on.
 */
export function endpointBodyOf(values: EndpointFormValues): { ok: true; fields: EndpointBodyFields } | { ok: false; errors: FieldErrors } {
  if (values.subscription === 'chosen' && values.eventTypes.length === 0)
    return { ok: false, errors: { eventTypes: 'Choose at least one type' } };
  return {
    ok: true,
    fields: {
      url: values.url.trim(),
      // The schema checks each name: the checkboxes offer only event types.
      eventTypes: values.subscription === 'all' ? ['*'] : (values.eventTypes as EventType[]),
      description: optionalText(values.description),
    },
  };
}
