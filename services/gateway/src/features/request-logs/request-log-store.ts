import type { Environment, Page, RequestAuthMode, RequestErrorSummary, RequestLog, RequestLogQuery } from '@wallet/contracts';
import type { Knex } from 'knex';
import {
  boundedList,
  boundedPage,
  type CandidateTest,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  equalityTests,
  prepared,
} from '@wallet/kit';

/** A request as recorded; tenant and environment decide who may read it. */
export interface NewRequestLog {
  id: string;
  tenantId: string | null;
  environment: Environment | null;
  correlationId: string;
  method: string;
  path: string;
  status: number;
  apiKeyId: string | null;
  authMode: RequestAuthMode | null;
  requestSignatureVerified: boolean;
  idempotencyKey: string | null;
  actorType: string | null;
  actorId: string | null;
  durationMs: number;
  errorCode: string | null;
  createdAt: Date;
}

interface RequestLogRow {
  id: string;
  correlation_id: string;
  method: string;
  path: string;
  status: number;
  api_key_id: string | null;
  auth_mode: RequestAuthMode | null;
  request_signature_verified: boolean;
  idempotency_key: string | null;
  actor_type: string | null;
  actor_id: string | null;
  duration_ms: number;
  error_code: string | null;
  created_at: Date;
}

export interface RequestLogStore {
  insert(logs: readonly NewRequestLog[]): Promise<void>;
  /** One tenant's records of one environment, newest first. */
  list(scope: { tenantId: string; environment: Environment }, query: RequestLogQuery): Promise<Page<RequestLog>>;
  /** Requests of the UTC days [fromDay, toDay) (YYYY-MM-DD) of one environment, of one tenant or (tenantId null) of all: totals and errors (status >= 400). */
  summarize(
    scope: { tenantId: string | null; environment: Environment },
    days: { fromDay: string; toDay: string },
  ): Promise<RequestErrorSummary>;
}

const COLUMNS = [
  'id',
  'correlation_id',
  'method',
  'path',
  'status',
  'api_key_id',
  'auth_mode',
  'request_signature_verified',
  'idempotency_key',
  'actor_type',
  'actor_id',
  'duration_ms',
  'error_code',
  'created_at',
] as const;

/**
 * A batch of records as one prepared statement of column arrays: the same text for any batch
 * size, so PostgreSQL plans it once per connection, where a multi-row VALUES list of 16
 * parameters a row is a new statement, built and planned for each batch. The same statement
 * adds the batch to its days' counts, so the counts never miss or double a record; groups are
 * upserted in key order, so two instances' batches lock shared rows in the same order.
 */
const INSERT_MANY_SQL = `
  WITH logged AS (
    INSERT INTO request_logs (id, tenant_id, environment, correlation_id, method, path, status, api_key_id, auth_mode,
                              request_signature_verified, idempotency_key, actor_type, actor_id, duration_ms, error_code, created_at)
    SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
                         CAST(? AS smallint[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS boolean[]), CAST(? AS text[]), CAST(? AS text[]),
                         CAST(? AS text[]), CAST(? AS integer[]), CAST(? AS text[]), CAST(? AS timestamptz[]))
    RETURNING tenant_id, environment, created_at, status, error_code)
  INSERT INTO request_log_days AS d (tenant_id, environment, day, status, error_code, requests)
  SELECT tenant_id, environment, (created_at AT TIME ZONE 'UTC')::date, status, error_code, count(*)
    FROM logged WHERE environment IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (tenant_id, environment, day, status, error_code) DO UPDATE SET requests = d.requests + EXCLUDED.requests`;

/** The sort key of the last record of a page: its time to the millisecond and its id. */
const cursorShape = { createdAt: cursorFields.timestamp, id: cursorFields.key };

function toRequestLog(row: RequestLogRow): RequestLog {
  return {
    id: row.id,
    correlationId: row.correlation_id,
    method: row.method,
    path: row.path,
    status: row.status,
    apiKeyId: row.api_key_id,
    authMode: row.auth_mode,
    requestSignatureVerified: row.request_signature_verified,
    idempotencyKey: row.idempotency_key,
    actorType: row.actor_type,
    actorId: row.actor_id,
    durationMs: row.duration_ms,
    errorCode: row.error_code,
    createdAt: row.created_at.toISOString(),
  };
}

const ORDER = [
  { column: 'created_at', order: 'desc' },
  { column: 'id', order: 'desc' },
] as const;

/** The list's filters no index serves. */
function testsOf(query: RequestLogQuery): CandidateTest[] {
  return equalityTests('r', {
    idempotency_key: query.idempotencyKey,
    api_key_id: query.apiKeyId,
    request_signature_verified: query.requestSignatureVerified,
    status: query.status,
    method: query.method,
    actor_id: query.actorId,
  });
}

async function insertLogs(db: Db, logs: readonly NewRequestLog[]): Promise<void> {
  if (logs.length === 0) return;
  const column = <Value>(pick: (log: NewRequestLog) => Value): Value[] => logs.map(pick);
  await prepared(db, INSERT_MANY_SQL, [
    column((log) => log.id),
    column((log) => log.tenantId),
    column((log) => log.environment),
    column((log) => log.correlationId),
    column((log) => log.method),
    column((log) => log.path),
    column((log) => log.status),
    column((log) => log.apiKeyId),
    column((log) => log.authMode),
    column((log) => log.requestSignatureVerified),
    column((log) => log.idempotencyKey),
    column((log) => log.actorType),
    column((log) => log.actorId),
    column((log) => log.durationMs),
    column((log) => log.errorCode),
    column((log) => log.createdAt.toISOString()),
  ] as unknown as Knex.RawBinding[]);
}

async function listLogs(
  db: Db,
  examineMax: number,
  scope: Parameters<RequestLogStore['list']>[0],
  query: RequestLogQuery,
): Promise<Page<RequestLog>> {
  const position = decodeCursor(query.cursor, cursorShape);
  const candidates = db('request_logs as r')
    .where({ 'r.tenant_id': scope.tenantId, 'r.environment': scope.environment })
    .orderBy(ORDER.map((key) => ({ column: `r.${key.column}`, order: key.order })))
    .select<RequestLogRow[]>(COLUMNS.map((column) => `r.${column}`));
  // What request_logs_tenant_time (and the correlation id's index) serve; the rest is tested row by row, at a bounded cost.
  if (position) candidates.whereRaw('(r.created_at, r.id) < (?, ?)', [new Date(position.createdAt), position.id]);
  if (query.correlationId !== undefined) candidates.where('r.correlation_id', query.correlationId);
  if (query.from !== undefined) candidates.where('r.created_at', '>=', new Date(query.from));
  if (query.to !== undefined) candidates.where('r.created_at', '<', new Date(query.to));
  const found = await boundedList<RequestLogRow>(db, {
    candidates,
    alias: 'r',
    order: ORDER,
    tests: testsOf(query),
    limit: query.limit,
    examineMax,
  });
  const { page, last } = boundedPage(found, query.limit);
  return {
    data: page.map(toRequestLog),
    nextCursor: last ? encodeCursor({ createdAt: last.created_at.toISOString(), id: last.id }) : null,
  };
}

async function summarizeDays(
  db: Db,
  scope: Parameters<RequestLogStore['summarize']>[0],
  days: Parameters<RequestLogStore['summarize']>[1],
): Promise<RequestErrorSummary> {
  // One row per day, tenant, status and code (request_log_days): the cost follows the days asked for, not the requests made.
  const result = await db.raw<{ rows: Array<{ status: number; error_code: string | null; count: string }> }>(
    `SELECT status, error_code, sum(requests) AS count FROM request_log_days
        WHERE environment = ? AND (?::text IS NULL OR tenant_id = ?) AND day >= ?::date AND day < ?::date
        GROUP BY status, error_code`,
    [scope.environment, scope.tenantId, scope.tenantId, days.fromDay, days.toDay],
  );
  const byStatus = new Map<number, number>();
  const byErrorCode = new Map<string, number>();
  let totalRequests = 0;
  let errorCount = 0;
  for (const row of result.rows) {
    const count = Number(row.count);
    totalRequests += count;
    if (row.status < 400) continue;
    errorCount += count;
    byStatus.set(row.status, (byStatus.get(row.status) ?? 0) + count);
    if (row.error_code !== null) byErrorCode.set(row.error_code, (byErrorCode.get(row.error_code) ?? 0) + count);
  }
  return {
    totalRequests,
    errorCount,
    byStatus: [...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, count]) => ({ status, count })),
    byErrorCode: [...byErrorCode.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([errorCode, count]) => ({ errorCode, count })),
  };
}

/** `examineMax`: how many records one list request may test against the filters no index serves; a page that runs out comes back short with a cursor. */
export function createRequestLogStore(db: Db, options: { examineMax: number }): RequestLogStore {
  return {
    insert: (logs) => insertLogs(db, logs),
    list: (scope, query) => listLogs(db, options.examineMax, scope, query),
    summarize: (scope, days) => summarizeDays(db, scope, days),
  };
}
