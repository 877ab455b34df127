import type { Knex } from 'knex';

export const OUTBOX_TABLE = 'outbox';

export interface OutboxMessage {
  messageId: string;
  exchange: string;
  routingKey: string;
  type: string;
  payload: unknown;
  /** The payload already serialized, when the caller has it: saves serializing it twice. */
  payloadText?: string;
  headers?: Record<string, string>;
  /** AMQP `replyTo` property: the queue a request/reply consumer answers on. */
  replyTo?: string;
  /** AMQP `correlationId` property: how the answer on `replyTo` is matched to its request. */
  correlationId?: string;
  /** Kept until its answer is recorded, and sent again while none comes (outbox-unanswered.ts). */
  untilAnswered?: boolean;
}

/**
 * replyTo and correlationId travel in the row's headers under these reserved names (no column
 * for them, so no service's outbox table changes) and are restored as AMQP properties on publish.
 */
export const PROPERTY_HEADERS = { replyTo: 'x-outbox-reply-to', correlationId: 'x-outbox-correlation-id' } as const;

function storedHeaders(message: OutboxMessage): Record<string, string> {
  if (message.replyTo === undefined && message.correlationId === undefined) return message.headers ?? {};
  return {
    ...message.headers,
    ...(message.replyTo !== undefined ? { [PROPERTY_HEADERS.replyTo]: message.replyTo } : {}),
    ...(message.correlationId !== undefined ? { [PROPERTY_HEADERS.correlationId]: message.correlationId } : {}),
  };
}

/** One array per stored column (message id, exchange, routing key, type, payload, headers), for an unnest of any number of messages. */
export function outboxColumnArrays(messages: readonly OutboxMessage[]): readonly Knex.RawBinding[] {
  return [
    messages.map((message) => message.messageId),
    messages.map((message) => message.exchange),
    messages.map((message) => message.routingKey),
    messages.map((message) => message.type),
    messages.map((message) => message.payloadText ?? JSON.stringify(message.payload)),
    messages.map((message) => JSON.stringify(storedHeaders(message))),
  ] as unknown as readonly Knex.RawBinding[];
}
