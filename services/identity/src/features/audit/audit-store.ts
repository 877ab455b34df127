import { type AuditEvent, type AuditEventQuery, type Environment, newId, type Page } from '@wallet/contracts';
import {
  auditActorFieldsOf,
  boundedList,
  boundedPage,
  type CandidateTest,
  currentContext,
  currentListExamineMax,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  equalityTests,
  type InternalClaims,
  type Tx,
} from '@wallet/kit';

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
export function auditActorFields(
  claims: InternalClaims,
): Pick<NewAuditEvent, 'actorType' | 'actorId'> & { metadata: Record<string, unknown> } {
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

const AUDIT_COLUMNS = [
  'seq',
  'id',
  'environment',
  'action',
  'actor_type',
  'actor_id',
  'target_type',
  'target_id',
  'metadata',
  'created_at',
] as const;

/** The list's filters no index serves: each tested on a bounded number of events (kit's boundedList). */
function auditTests(scope: { environment: Environment }, query: AuditEventQuery): CandidateTest[] {
  const tests: CandidateTest[] = [
    (events) => events.where((inner) => inner.whereNull('a.environment').orWhere('a.environment', scope.environment)),
  ];
  const { from, to } = query;
  tests.push(...equalityTests('a', { action: query.action || undefined, actor_id: query.actorId || undefined }));
  if (from) tests.push((events) => events.where('a.created_at', '>=', from));
  if (to) tests.push((events) => events.where('a.created_at', '<', to));
  return tests;
}

/**
 * The tenant's records visible from this environment (its own and tenant-wide ones), newest
 * first. The tenant's seq index (or its target index) gives the candidates; the environment,
 * action, actor and time are tested on at most LIST_EXAMINE_MAX of them per request, so a page
 * may come back short, even empty, with a cursor that goes on.
 */
export async function listAuditEvents(
  db: Db,
  scope: { tenantId: string; environment: Environment },
  query: AuditEventQuery,
): Promise<Page<AuditEvent>> {
  const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
  const candidates = db('audit_events as a')
    .where('a.tenant_id', scope.tenantId)
    .orderBy('a.seq', 'desc')
    .select(AUDIT_COLUMNS.map((column) => `a.${column}`));
  if (position) candidates.where('a.seq', '<', position.seq);
  if (query.targetType) candidates.where('a.target_type', query.targetType);
  if (query.targetId) candidates.where('a.target_id', query.targetId);
  const found = await boundedList<AuditEventRow>(db, {
    candidates,
    alias: 'a',
    order: [{ column: 'seq', order: 'desc' }],
    tests: auditTests(scope, query),
    limit: query.limit,
    examineMax: currentListExamineMax(),
  });
  const { page, last } = boundedPage(found, query.limit);
  return { data: page.map(toAuditEvent), nextCursor: last ? encodeCursor({ seq: last.seq }) : null };
}
