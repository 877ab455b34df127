import { type LedgerPostV1, TOPOLOGY } from '@wallet/contracts';
import type { OutboxMessage } from '../outbox';

/**
 * A `ledger.post.v1` command as an outbox message: published only if the transaction that wrote
 * it (with the business record) commits. The command id is its message id and its AMQP
 * correlation id, so the ledger's reply on `replyTo` names the command it answers. Without
 * `replyTo` (no reply queue right now) the ledger's posted/rejected event still finishes the record.
 */
export function postingMessage(command: LedgerPostV1, options: { replyTo?: string | undefined } = {}): OutboxMessage {
  return {
    messageId: command.commandId,
    exchange: TOPOLOGY.ledgerCommands.exchange,
    routingKey: TOPOLOGY.ledgerCommands.routingKey,
    type: command.type,
    payload: command,
    correlationId: command.commandId,
    ...(options.replyTo !== undefined ? { replyTo: options.replyTo } : {}),
    ...(command.correlationId ? { headers: { 'x-correlation-id': command.correlationId } } : {}),
  };
}
