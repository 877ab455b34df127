import type { z } from 'zod';
import type { SchemaWriter } from './openapi-schemas';

/** An event the platform posts to a tenant's webhook endpoints, as the OpenAPI document shows it. */
export interface WebhookEvent {
  /** `transfer.completed`: its key under `webhooks` and, as `webhooks.<type>`, its operationId. */
  type: string;
  summary?: string;
  /** The body each delivery posts; a named object of the answers (components) is `$ref`ed. */
  schema: z.ZodType;
}

/**
 * The document's `webhooks` (OpenAPI 3.1): one POST per event type, its body the event. The
 * platform is the client here, so no credential is asked of it; the receiver checks the
 * delivery's signature.
 */
export function webhookPathItems(events: readonly WebhookEvent[], schemas: SchemaWriter): Record<string, unknown> {
  return Object.fromEntries(
    events.map((event) => [
      event.type,
      {
        post: {
          operationId: `webhooks.${event.type}`,
          summary: event.summary ?? `The ${event.type} event`,
          tags: ['webhooks'],
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: schemas.write(event.schema, 'output') } } },
          responses: {
            '2XX': { description: 'Received' },
            '4XX': { description: 'Not taken: the delivery attempt failed' },
            '5XX': { description: 'Not taken: the delivery attempt failed' },
          },
        },
      },
    ]),
  );
}
