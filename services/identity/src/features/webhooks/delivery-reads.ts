import type { EventType, Page, WebhookDelivery, WebhookDeliveryQuery } from '@wallet/contracts';
import { type Db, pageBySeq, type Tx } from '@wallet/kit';
import type { EndpointScope } from './endpoints-store';

/** Failed deliveries one replay request puts back at most; a larger backlog takes more requests, each bounded. */
export const REPLAY_MAX = 10_000;

interface DeliveryRow {
  seq: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: EventType;
  status: WebhookDelivery['status'];
  attempts: WebhookDelivery['attempts'];
  next_attempt_at: Date | null;
  created_at: Date;
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** The endpoint's deliveries newest first, along its (endpoint, seq) index; a status is tested on the page's candidates. */
export async function listDeliveries(db: Db, endpointId: string, query: WebhookDeliveryQuery): Promise<Page<WebhookDelivery>> {
  return pageBySeq(
    query,
    (beforeSeq) => {
      const rows = db('webhook_deliveries')
        .where({ endpoint_id: endpointId })
        .orderBy('seq', 'desc')
        .limit(query.limit + 1);
      if (beforeSeq !== undefined) rows.where('seq', '<', beforeSeq);
      if (query.status) rows.where('status', query.status);
      if (query.eventId) rows.where('event_id', query.eventId);
      return rows.select<DeliveryRow[]>(
        'seq',
        'id',
        'endpoint_id',
        'event_id',
        'event_type',
        'status',
        'attempts',
        'next_attempt_at',
        'created_at',
      );
    },
    toDelivery,
  );
}

/**
 * Makes one event due to the endpoint again from a fresh schedule (or for the first time, when
 * it was recorded before the endpoint subscribed to it). A delivery still pending is left as it is:
 * it is on its way. False when the event is not one of the scope's (or is past its retention).
 */
export async function replayEvent(tx: Tx, endpointId: string, eventId: string, scope?: EndpointScope): Promise<boolean> {
  const event = tx('platform_events').where({ id: eventId });
  if (scope) event.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const found: { id: string; type: string; object_id: string } | undefined = await event.first('id', 'type', 'object_id');
  if (!found) return false;
  await tx.raw(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, object_id, next_attempt_at)
     VALUES ('wd_' || md5(? || ':' || ?), ?, ?, ?, ?, now())
     ON CONFLICT (endpoint_id, event_id) DO UPDATE
       SET status = 'pending', attempt_count = 0, next_attempt_at = now(), updated_at = now()
       WHERE webhook_deliveries.status <> 'pending'`,
    [endpointId, found.id, endpointId, found.id, found.type, found.object_id],
  );
  return true;
}

/** Puts the endpoint's failed deliveries since `since` back on a fresh schedule, oldest first, at most REPLAY_MAX. */
export async function replayFailedSince(tx: Tx, endpointId: string, since: Date): Promise<number> {
  const result = await tx.raw<{ rowCount: number }>(
    `UPDATE webhook_deliveries SET status = 'pending', attempt_count = 0, next_attempt_at = now(), updated_at = now()
      WHERE seq IN (SELECT seq FROM webhook_deliveries
                     WHERE endpoint_id = ? AND status = 'failed' AND created_at >= ? ORDER BY seq LIMIT ?)`,
    [endpointId, since, REPLAY_MAX],
  );
  return result.rowCount;
}
