import { type AuditEvent, type AuditEventQuery, type Environment, newId, type Page } from '@wallet/contracts';
import { auditActorFieldsOf, currentContext, cursorFields, type Db, decodeCursor, encodeCursor, type InternalClaims, type Tx } from '@wallet/kit';

export interface NewAuditEvent {
  /** null: the platform's own record, which no tenant sees. */
  tenantId: string | null;
  /** null for tenant-wide records (team, keys); an environment hides the record from the other one. */
  environment: Environment | null;
  action: string;
  actorType: string;
  actorId: string;
  targetType: string;
  targetId: string;
  metadata?: Record<string, unknown>;
  /** When the action happened, for records that arrive from other services; else now. */
  occurredAt?: string;
  /** The correlation id of the action, when it is not the current context's. */
  correlationId?: string | null;
}

interface AuditEventRow {
  seq: string;
  id: string;
  action: string;
  actor_type: string;
  actor_id: string;
  target_type: string;
  target_id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
}

/** The actor fields of an audit record for a call with these claims; a key behind an actor is kept in metadata. */
export function auditActorFields(claims: InternalClaims): Pick<NewAuditEvent, 'actorType' | 'actorId'> & { metadata: Record<string, unknown> } {
  return auditActorFieldsOf(claims);
}

/**
 * Written in the caller's transaction: the action and its record commit together or not at all.
 * The table refuses UPDATE and DELETE, so this is the only way in.
 */
export async function recordAuditEvents(tx: Tx | Db, events: readonly NewAuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  const contextCorrelationId = currentContext()?.correlationId ?? null;
  await tx('audit_events').insert(
    events.map((event) => ({
      ...(event.occurredAt ? { created_at: event.occurredAt } : {}),
      id: newId('auditEvent'),
      tenant_id: event.tenantId,
      environment: event.environment,
      action: event.action,
      actor_type: event.actorType,
      actor_id: event.actorId,
      target_type: event.targetType,
      target_id: event.targetId,
      metadata: JSON.stringify(event.metadata ?? {}),
      correlation_id: event.correlationId ?? contextCorrelationId,
    })),
  );
}

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    action: row.action,
    actorType: row.actor_type,
    actorId: row.actor_id,
    targetType: row.target_type,
    targetId: row.target_id,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
  };
}

/** The tenant's records visible from this environment (its own and tenant-wide ones), newest first. */
export async function listAuditEvents(db: Db, scope: { tenantId: string; environment: Environment }, query: AuditEventQuery): Promise<Page<AuditEvent>> {
  const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
  const builder = db('audit_events')
    .where({ tenant_id: scope.tenantId })
    .where((inner) => inner.whereNull('environment').orWhere('environment', scope.environment))
    .orderBy('seq', 'desc')
    .limit(query.limit + 1)
    .select(['seq', 'id', 'action', 'actor_type', 'actor_id', 'target_type', 'target_id', 'metadata', 'created_at']);
  if (position) builder.where('seq', '<', position.seq);
  if (query.action) builder.where('action', query.action);
  if (query.actorId) builder.where('actor_id', query.actorId);
  if (query.targetType) builder.where('target_type', query.targetType);
  if (query.targetId) builder.where('target_id', query.targetId);
  if (query.from) builder.where('created_at', '>=', query.from);
  if (query.to) builder.where('created_at', '<', query.to);
  const rows: AuditEventRow[] = await builder;
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { data: page.map(toAuditEvent), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
}
