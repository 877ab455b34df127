import { auditRecordV1Schema, TOPOLOGY } from '@wallet/contracts';
import { type Broker, consumeIdempotently, type Db, type Logger } from '@wallet/kit';
import type { ReviewNotices } from '../review-notices/review-notices';
import { recordAuditEvents } from './audit-store';

/**
 * Audit records other services wrote to their outboxes; each message id is recorded once, with
 * the e-mail to reviewers it asks for when mail is configured (a case requested or half approved).
 */
export async function startAuditRecordsConsumer(deps: {
  broker: Broker;
  db: Db;
  logger: Logger;
  notices: ReviewNotices | null;
}): Promise<void> {
  await consumeIdempotently({
    broker: deps.broker,
    db: deps.db,
    logger: deps.logger,
    queue: TOPOLOGY.auditRecords.queue,
    schema: auditRecordV1Schema,
    messageIdOf: (record) => record.messageId,
    handle: async (tx, record) => {
      await recordAuditEvents(tx, [
        {
          tenantId: record.tenantId,
          environment: record.environment,
          action: record.action,
          actorType: record.actorType,
          actorId: record.actorId,
          targetType: record.targetType,
          targetId: record.targetId,
          metadata: record.metadata,
          occurredAt: record.occurredAt,
        },
      ]);
      await deps.notices?.enqueue(tx, record);
    },
  });
}
