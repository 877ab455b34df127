import {
  LEDGER_COMMANDS_PER_MESSAGE_MAX,
  ledgerCommandRoutingKey,
  ledgerCommandTypeSchema,
  type LedgerPostV1,
  TOPOLOGY,
} from '@wallet/contracts';
import { type OutboxMessage, type OutgoingMessage, traceHeaders } from '@wallet/kit';

/** What one record posts, as its feature's posting rules build it. */
export interface RecordPosting {
  commandId: string;
  kind: LedgerPostV1['kind'];
  reference: LedgerPostV1['reference'];
  lines: LedgerPostV1['lines'];
}

/** The `ledger.post.v1` command of a record: its scope and correlation id, and what it posts. */
export function postCommandOf(
  record: { tenantId: string; environment: LedgerPostV1['environment']; correlationId?: string | undefined },
  posting: RecordPosting,
): LedgerPostV1 {
  return {
    type: 'ledger.post.v1',
    commandId: posting.commandId,
    tenantId: record.tenantId,
    environment: record.environment,
    ...(record.correlationId ? { correlationId: record.correlationId } : {}),
    kind: posting.kind,
    reference: posting.reference,
    lines: posting.lines,
  };
}

/**
 * A `ledger.post.v1` command as an outbox message: published only if the transaction that wrote
 * it (with the business record) commits. The command id is its message id and its AMQP
 * correlation id, so the ledger's reply on `replyTo` names the command it answers. Without
 * `replyTo` (no reply queue right now) the ledger's posted/rejected event still finishes the record.
 * With tracing on, the command and the message's headers carry the sending span's context: the
 * headers for the publish and delivery spans, the command for the ledger's commit span (several
 * commands share a message) and for its result, which finishes the record in the same trace.
 */
export function postingMessage(command: LedgerPostV1, options: { replyTo?: string | undefined } = {}): OutboxMessage {
  const trace = traceHeaders();
  const headers = { ...(command.correlationId ? { 'x-correlation-id': command.correlationId } : {}), ...trace };
  const payload = trace.traceparent === undefined ? command : { ...command, ...trace };
  return {
    messageId: command.commandId,
    exchange: TOPOLOGY.ledgerCommands.exchange,
    routingKey: ledgerCommandRoutingKey(command.tenantId),
    type: command.type,
    payload,
    // Serialized once: the outbox row, its copy kept until answered and the publish all take this text.
    payloadText: JSON.stringify(payload),
    correlationId: command.commandId,
    // Sent again until its result is recorded: nothing is lost after the broker took it.
    untilAnswered: true,
    ...(options.replyTo !== undefined ? { replyTo: options.replyTo } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

const LEDGER_COMMAND_TYPES: ReadonlySet<string> = new Set(ledgerCommandTypeSchema.options);

function isLedgerCommand(message: OutgoingMessage): boolean {
  return message.exchange === TOPOLOGY.ledgerCommands.exchange && LEDGER_COMMAND_TYPES.has(String(message.options.type));
}

/**
 * The ledger commands among `messages` that share a tenant and a reply-to queue, as `ledger.commands.v1`
 * messages of up to LEDGER_COMMANDS_PER_MESSAGE_MAX commands, each where its first command was;
 * everything else as it was, in order. One message rather than one per command is one publish,
 * one broker enqueue and confirm, and one delivery to the ledger: what the broker and both ends
 * spend per message is the larger part of what a command costs them. Each command keeps its
 * correlation id (the answer is matched by it); its `x-correlation-id` header is its body's
 * `correlationId` already.
 */
export function coalesceLedgerCommands(messages: readonly OutgoingMessage[]): OutgoingMessage[] {
  const groups = new Map<string, OutgoingMessage[]>();
  for (const message of messages) {
    if (!isLedgerCommand(message)) continue;
    // One message reaches one partition: its commands share a tenant (the routing key) as well.
    const key = `${message.routingKey}\n${message.options.replyTo ?? ''}`;
    const group = groups.get(key);
    if (group) group.push(message);
    else groups.set(key, [message]);
  }
  if ([...groups.values()].every((group) => group.length < 2)) return [...messages];

  const envelopes = new Map<OutgoingMessage, OutgoingMessage[]>();
  const absorbed = new Set<OutgoingMessage>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    for (let start = 0; start < group.length; start += LEDGER_COMMANDS_PER_MESSAGE_MAX) {
      const chunk = group.slice(start, start + LEDGER_COMMANDS_PER_MESSAGE_MAX);
      const first = chunk[0] as OutgoingMessage;
      if (chunk.length < 2) continue;
      for (const member of chunk) absorbed.add(member);
      envelopes.set(first, chunk);
    }
  }
  const out: OutgoingMessage[] = [];
  for (const message of messages) {
    const chunk = envelopes.get(message);
    if (chunk) {
      const items = chunk.map(
        (member) => `{"correlationId":${JSON.stringify(member.options.correlationId ?? null)},"command":${member.text}}`,
      );
      out.push({
        exchange: message.exchange,
        routingKey: message.routingKey,
        text: `{"type":"ledger.commands.v1","commands":[${items.join(',')}]}`,
        options: {
          type: 'ledger.commands.v1',
          messageId: `${String(message.options.messageId)}:commands`,
          ...(message.options.replyTo !== undefined ? { replyTo: message.options.replyTo } : {}),
          // The first command's publish span: the delivery's span continues its trace (the others' traces meet it through the commit span's links).
          ...(message.options.headers?.traceparent !== undefined
            ? { headers: traceFieldsOf(message.options.headers as Record<string, unknown>) }
            : {}),
        },
      });
    } else if (!absorbed.has(message)) {
      out.push(message);
    }
  }
  return out;
}

function traceFieldsOf(headers: Readonly<Record<string, unknown>>): Record<string, string> {
  const fields: Record<string, string> = {};
  if (typeof headers.traceparent === 'string') fields.traceparent = headers.traceparent;
  if (typeof headers.tracestate === 'string') fields.tracestate = headers.tracestate;
  return fields;
}
