import { z } from 'zod';
import { environmentSchema } from '../common';
import { auditActionSchema } from '../http/audit';

/**
 * `audit.record.v1`: an auditable action another service performed (a wallet frozen, a payout
 * approved, a fee schedule published). Written to that service's outbox in the transaction of
 * the action; identity, which owns the audit trail, records it once per messageId.
 */
export const auditRecordV1Schema = z.object({
  type: z.literal('audit.record.v1'),
  messageId: z.string().min(1).max(128),
  tenantId: z.string().min(1).max(64),
  /** null: tenant-wide; else the record is visible only from this environment. */
  environment: environmentSchema.nullable(),
  action: auditActionSchema,
  actorType: z.string().min(1).max(64),
  actorId: z.string().min(1).max(128),
  targetType: z.string().min(1).max(64),
  targetId: z.string().min(1).max(128),
  metadata: z.record(z.string(), z.unknown()).default({}),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type AuditRecordV1 = z.infer<typeof auditRecordV1Schema>;
