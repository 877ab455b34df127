import { type AnnouncedEvent, type Environment, type EventQuery } from '@wallet/contracts';
import {
  boundedList,
  boundedPage,
  type CandidateTest,
  createdRangeTests,
  currentListExamineMax,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  type Tx,
} from '@wallet/kit';

export interface EventScope {
  tenantId: string;
  environment: Environment;
}

/** A page of events as JSON text: each event exactly as its webhooks send it. */
export interface EventPageText {
  text: string;
}

/**
 * Records a batch of announced events, each once (an event announced again has the same id), and
 * in the same statement a pending delivery of each new one to every enabled endpoint of its
 * tenant and environment subscribed to its type: recorded and due together, or neither. Test
 * events go only to the endpoint that asked (sendTest). Deliveries are numbered in the events'
 * order, which the worker keeps per object.
 */
export async function recordPlatformEvents(db: Db | Tx, events: readonly AnnouncedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const column = <Value>(of: (event: AnnouncedEvent, position: number) => Value) => events.map(of);
  const result = await db.raw<{ rowCount: number }>(
    `WITH incoming AS (
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::int[])
         AS i(id, tenant_id, environment, type, object_id, payload, created_at, position)
     ), inserted AS (
       INSERT INTO platform_events (id, tenant_id, environment, type, object_id, payload, created_at)
       SELECT id, tenant_id, environment, type, object_id, payload, created_at FROM incoming ORDER BY position
       ON CONFLICT (id) DO NOTHING
       RETURNING seq, id, tenant_id, environment, type, object_id
     )
     INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, object_id, next_attempt_at)
     SELECT 'wd_' || md5(e.id || ':' || i.id), e.id, i.id, i.type, i.object_id, now()
       FROM inserted i
       JOIN webhook_endpoints e ON e.tenant_id = i.tenant_id AND e.environment = i.environment AND e.enabled
      WHERE i.type <> 'webhook_endpoint.test' AND (i.type = ANY (e.event_types) OR '*' = ANY (e.event_types))
      ORDER BY i.seq, e.seq`,
    [
      column((event) => event.id),
      column((event) => event.tenantId),
      column((event) => event.environment),
      column((event) => event.type),
      column((event) => event.objectId),
      column((event) => event.json),
      column((event) => event.createdAt),
      column((_, position) => position),
    ],
  );
  return result.rowCount;
}

interface EventRow {
  seq: string;
  payload: string;
}

/** The list's filters no index serves: each tested on a bounded number of events (kit's boundedList). */
function eventTests(scope: EventScope, query: EventQuery): CandidateTest[] {
  const tests: CandidateTest[] = [(events) => events.where('e.environment', scope.environment)];
  if (query.type) tests.push((events) => events.whereIn('e.type', query.type ?? []));
  return [...tests, ...createdRangeTests('e', query)];
}

/**
 * The environment's events, newest first, as JSON text. The tenant's seq index (or its object
 * index, for `objectId`) gives the candidates; the environment, types and times are tested on at
 * most LIST_EXAMINE_MAX of them a request, so a page may come back short with a cursor that goes on.
 */
export async function listEvents(db: Db, scope: EventScope, query: EventQuery): Promise<EventPageText> {
  const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
  const candidates = db('platform_events as e')
    .where('e.tenant_id', scope.tenantId)
    .orderBy('e.seq', 'desc')
    .select('e.seq', 'e.payload', 'e.environment', 'e.type', 'e.created_at');
  if (position) candidates.where('e.seq', '<', position.seq);
  if (query.objectId) candidates.where('e.object_id', query.objectId);
  const found = await boundedList<EventRow>(db, {
    candidates,
    alias: 'e',
    order: [{ column: 'seq', order: 'desc' }],
    tests: eventTests(scope, query),
    limit: query.limit,
    examineMax: currentListExamineMax(),
  });
  const { page, last } = boundedPage(found, query.limit);
  const nextCursor = last ? JSON.stringify(encodeCursor({ seq: last.seq })) : 'null';
  return { text: `{"data":[${page.map((row) => row.payload).join(',')}],"nextCursor":${nextCursor}}` };
}

/** One event of the scope, as JSON text; null when the scope has none of that id. */
export async function findEventText(db: Db | Tx, scope: EventScope, id: string): Promise<string | null> {
  const row: { payload: string } | undefined = await db('platform_events')
    .where({ id, tenant_id: scope.tenantId, environment: scope.environment })
    .first('payload');
  return row?.payload ?? null;
}
